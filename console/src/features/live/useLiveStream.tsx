import { useQueryClient } from '@tanstack/react-query';
import { App, Button } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { session } from '../../shared/api/session.ts';
import { readEventStream } from '../../shared/api/sse.ts';
import { customerQueries } from '../customers/index.ts';
import { linkQueries } from '../links/index.ts';
import { INBOX_KEY } from '../notifications/index.ts';
import { useBehaviourTitle } from '../../shared/behaviour/useBehaviourTitle.ts';
import { coalesced } from './coalesce.ts';
import { type FeedEntry, liveFeed } from './liveFeed.ts';
import { alerts } from './alerts.ts';

/** A message of the live stream (docs/live.md): the event, as webhooks carry it. */
interface LiveEvent {
  domainType: string;
  event_type: string;
  domainId: string;
  body: Record<string, unknown> & {
    customerId?: string;
    customerName?: string;
    name?: string;
    action?: string;
    content?: string;
    linkName?: string | null;
    location?: string | null;
  };
  createdAt: string;
}

/** The timeline records of the team's notes and tasks: not the customer's doing. */
const TEAM_RECORDS = new Set(['member_note', 'member_task']);

/**
 * The project's live stream, one per tab while a project is open: each event refreshes the cached
 * data it touches, joins the feed, and a customer's activity pops up a notification at once.
 */
export function useLiveStream(appId: string | undefined): { open: boolean } {
  const client = useQueryClient();
  const { notification } = App.useApp();
  const { t } = useTranslation();
  const title = useBehaviourTitle();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);

  useEffect(() => {
    if (!appId) return;
    const abort = new AbortController();
    // What events changed is read again when next shown (at once, where it is on screen), once a
    // second at most however many arrive (an import's), without cancelling a read under way.
    const refresh = coalesced(() => {
      void client.invalidateQueries({ queryKey: customerQueries.all(appId) }, { cancelRefetch: false });
      // …and the links' counters and view logs (a view, a page read, a form sent).
      void client.invalidateQueries({ queryKey: linkQueries.all(appId) }, { cancelRefetch: false });
      // …and the task lists (features/tasks/api.ts, `taskQueries.all`): a colleague's task made, done or moved.
      void client.invalidateQueries({ queryKey: ['tasks', appId] }, { cancelRefetch: false });
    }, 1000);
    void readEventStream({
      url: `/api/v1.7/app/${encodeURIComponent(appId)}/live`,
      token: session.token,
      renewToken: session.refresh,
      signal: abort.signal,
      onState: setOpen,
      onMessage: (message) => {
        let event: LiveEvent;
        try {
          event = JSON.parse(message.data) as LiveEvent;
        } catch {
          return;
        }
        const body = event.body ?? {};
        if (event.domainType === 'LinkView') {
          // Someone not yet a customer opened a shared link (docs/events.md).
          const anonymous: FeedEntry = {
            id: message.id ?? event.domainId,
            appId,
            customerId: undefined,
            customerName: t('live.someone'),
            textKey: 'anonymousOpen',
            action: undefined,
            content: null,
            linkName: body.linkName ?? '',
            place: body.location ? ` · ${body.location}` : '',
            at: event.createdAt,
          };
          liveFeed.add(anonymous);
          notification.info({
            key: `live-${anonymous.id}`,
            message: t('live.anonymousOpen', { link: anonymous.linkName, place: anonymous.place }),
            placement: 'bottomRight',
          });
          return;
        }
        if (event.domainType === 'Alert') {
          // An alert told (docs/alerts.md "Events"): the bell's count and the inbox are read again;
          // what it is about came as its own event (the reading's, the note's), shown as such.
          void client.invalidateQueries({ queryKey: INBOX_KEY });
          return;
        }
        if (event.domainType === 'Note' || event.domainType === 'Task' || TEAM_RECORDS.has(body.action ?? '')) {
          // The team's notes and tasks (docs/tasks.md) and their timeline records: what shows them is
          // read again; the feed is the customers' activity (and these records name no customer).
          refresh.request();
          return;
        }
        if (event.domainType === 'Customer' && event.event_type === 'hot') {
          // A customer announced as a hot lead (docs/scoring.md): no change of the customer's to show;
          // the hot leads are read again, and the alert that tells it comes as its own event.
          refresh.request();
          return;
        }
        const isCustomer = event.domainType === 'Customer';
        const customerId = isCustomer ? event.domainId : body.customerId;
        refresh.request();
        const entry: FeedEntry = {
          id: message.id ?? event.domainId,
          appId,
          customerId,
          customerName: String((isCustomer ? body.name : body.customerName) || t('live.someone')),
          textKey: isCustomer ? (event.event_type === 'create' ? 'customerCreated' : 'customerChanged') : 'activity',
          action: isCustomer ? undefined : body.action,
          content: typeof body.content === 'string' ? body.content : null,
          linkName: undefined,
          at: event.createdAt,
        };
        liveFeed.add(entry);
        // A customer's doing worth hearing of at once (features/live/alerts.ts), not the team's own.
        if (event.domainType !== 'BehaviourLog' || !alerts(body.action)) return;
        const what = title({ action: body.action ?? '', content: entry.content, when: event.createdAt });
        notification.info({
          key: `live-${entry.id}`,
          message: t('live.activity', { name: entry.customerName, what }),
          placement: 'bottomRight',
          btn: customerId ? (
            <Button
              type="primary"
              size="small"
              onClick={() => {
                notification.destroy(`live-${entry.id}`);
                void navigate(`/p/${appId}/customers/${customerId}`);
              }}
            >
              {t('live.open')}
            </Button>
          ) : undefined,
        });
      },
    });
    return () => {
      abort.abort();
      refresh.cancel();
    };
  }, [appId, client, notification, t, title, navigate]);

  return { open };
}
