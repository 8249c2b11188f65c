import { Table, TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

/** A table that scrolls sideways on narrow screens rather than squeezing its columns; Mantine renders head and rows. */
export function DataTable({
  head,
  rows,
  minWidth,
  ...props
}: { head: ReactNode[]; rows: ReactNode[][]; minWidth: number } & Omit<TableProps, 'data'>) {
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table {...props} data={{ head, body: rows }} />
    </Table.ScrollContainer>
  );
}
