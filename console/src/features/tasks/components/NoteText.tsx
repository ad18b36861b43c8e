import { Typography } from 'antd';
import { Fragment, useMemo } from 'react';
import { noteToLines } from '../noteText.ts';

/**
 * A note as the console shows it: its text with its line breaks, links (opened in a new tab) and
 * mentions (a member who may see the customer stands out; anyone else is plain text). No Markdown
 * beyond that and never HTML: every piece is drawn as text (features/tasks/noteText.ts).
 */
export function NoteText({ content, mentions }: { content: string; mentions: readonly number[] }) {
  const lines = useMemo(() => noteToLines(content, mentions), [content, mentions]);
  return (
    <Typography.Paragraph style={{ margin: 0, overflowWrap: 'anywhere' }} data-note-text>
      {lines.map((pieces, i) => (
        <Fragment key={i}>
          {i > 0 && <br />}
          {pieces.map((p, j) =>
            p.kind === 'link' ? (
              // Underlined: a link in running text is told apart by more than its colour.
              <a key={j} href={p.href} target="_blank" rel="noopener noreferrer nofollow" style={{ textDecoration: 'underline' }}>
                {p.text}
              </a>
            ) : p.kind === 'mention' ? (
              p.known ? (
                <Typography.Text key={j} strong style={{ color: '#1565c0' }} data-mention={p.id}>
                  @{p.label}
                </Typography.Text>
              ) : (
                <Fragment key={j}>@{p.label}</Fragment>
              )
            ) : (
              <Fragment key={j}>{p.text}</Fragment>
            ),
          )}
        </Fragment>
      ))}
    </Typography.Paragraph>
  );
}
