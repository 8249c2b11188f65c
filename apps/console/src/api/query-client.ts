import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './client';

/**
 * The console's one cache of server data (TanStack Query). A refusal (4xx) is an answer, not a blip: it is not
 * retried. A network failure or a 5xx is retried once.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 1,
    },
  },
});
