import { queryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { get } from './client';
import type { Page } from './types';

/**
 * A console path as a query key, one element per segment: invalidating `['applications', id]` refreshes everything
 * read under that application (its usage, its webhook deliveries…).
 */
export function keyOf(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/** A GET of the console API as a TanStack query: `useQuery(apiQuery<T>('/applications'))`. */
export function apiQuery<T>(path: string) {
  return queryOptions({ queryKey: keyOf(path), queryFn: () => get<T>(path) });
}

/**
 * A console listing read page by page (`limit` and `cursor`, as every console listing pages): the records so far,
 * `hasNextPage` and `fetchNextPage` to append the next page.
 */
export function usePagedQuery<T>(path: string, { limit = 50, enabled = true } = {}) {
  const separator = path.includes('?') ? '&' : '?';
  const query = useInfiniteQuery({
    queryKey: [...keyOf(path), { limit }],
    queryFn: ({ pageParam }) =>
      get<Page<T>>(`${path}${separator}limit=${limit}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next,
    enabled,
  });
  return { ...query, records: query.data?.pages.flatMap((page) => page.data) ?? [] };
}
