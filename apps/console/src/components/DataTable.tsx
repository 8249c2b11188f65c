import { Table, TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways on narrow screens rather than squeezing its columns; Mantine renders head and rows.
 * The scrolling box takes the keyboard focus, so its hidden columns are reachable by arrow keys too.
 */
export function DataTable({
  head,
  rows,
  minWidth,
  ...props
}: { head: ReactNode[]; rows: ReactNode[][]; minWidth: number } & Omit<TableProps, 'data'>) {
  return (
    <Table.ScrollContainer minWidth={minWidth} type="native" tabIndex={0}>
      <Table {...props} data={{ head, body: rows }} />
    </Table.ScrollContainer>
  );
}
