import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { meQuery } from '../../shared/api/me.ts';
import { memberQueries } from '../members/index.ts';
import { type Person, memberName, peopleWhoMaySee, seesEveryone } from './model.ts';

/**
 * The signed-in member and the project's people as the notes and tasks show them: the caller's id
 * and whether they see everyone's customers (Master, Admin), each member's name by id, and, for a
 * customer (its owner), those who may be mentioned or given its tasks.
 */
export function usePeople(appId: string, ownerId?: number) {
  const me = useQuery(meQuery());
  const members = useQuery(memberQueries.list(appId));
  const myId = me.data?.id;
  const mine = members.data?.find((m) => m.svcUserId === myId);
  const names = useMemo(() => new Map((members.data ?? []).map((m) => [m.svcUserId, memberName(m)])), [members.data]);
  const people: Person[] = useMemo(() => peopleWhoMaySee(members.data ?? [], ownerId, myId), [members.data, ownerId, myId]);
  const nameOf = useCallback((id: number | null | undefined) => (id == null ? '' : (names.get(id) ?? `#${id}`)), [names]);
  return {
    myId,
    /** The Master and Admins see every customer, so everyone's tasks, and may delete others' notes. */
    manages: seesEveryone(mine?.role),
    people,
    /** Every active member, for the Tasks page's assignee filter. */
    members: useMemo(
      () =>
        (members.data ?? [])
          .filter((m) => m.status === 0)
          .map((m) => ({ id: m.svcUserId, name: memberName(m) }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      [members.data],
    ),
    nameOf,
    ready: myId !== undefined && members.data !== undefined,
  };
}
