import { useState } from 'react';
import { get } from './client';
import type { Page } from './types';
import { useFailureToast } from './use-error-text';
import { useRequest } from './use-request';

/**
 * A console listing read page by page (`limit` and `cursor`, as every console listing pages): the records so far,
 * the cursor of the next page (null at the end) and `more` to append it.
 */
export function usePages<T>(path: string, limit = 50) {
  const showFailure = useFailureToast();
  const separator = path.includes('?') ? '&' : '?';
  const [extra, setExtra] = useState<{ records: T[]; next: string | null } | null>(null);
  const first = useRequest(() => {
    setExtra(null);
    return get<Page<T>>(`${path}${separator}limit=${limit}`);
  }, [path]);
  const records = [...(first.data?.data ?? []), ...(extra?.records ?? [])];
  const next = extra ? extra.next : (first.data?.next ?? null);
  const more = async (cursor: string) => {
    try {
      const page = await get<Page<T>>(`${path}${separator}limit=${limit}&cursor=${encodeURIComponent(cursor)}`);
      setExtra({ records: [...(extra?.records ?? []), ...page.data], next: page.next });
    } catch (error) {
      showFailure(error);
    }
  };
  return { records, next, more, error: first.error, answered: first.data !== undefined };
}
