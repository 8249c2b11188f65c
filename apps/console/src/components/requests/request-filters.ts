import { useState } from 'react';

export type Outcome = 'all' | 'refused' | 'succeeded' | 'failed';
export type Mode = 'all' | 'sync' | 'async';

/** The error codes offered in the code filter: those a call is most often refused or failed with. */
export const COMMON_CODES = [
  'InvalidParameter',
  'RateLimited',
  'DailyLimitExceeded',
  'QuotaExceeded',
  'BudgetExceeded',
  'IpNotAllowed',
  'ScopeDenied',
  'ModelNotFound',
  'InvalidSignature',
  'ContentRejected',
  'UpstreamError',
  'Timeout',
  'ClientClosedRequest',
] as const;

interface Chosen {
  outcome: Outcome;
  code: string | null;
  model: string | null;
  keyId: string | null;
  mode: Mode;
}

const NONE: Chosen = { outcome: 'all', code: null, model: null, keyId: null, mode: 'all' };

/**
 * The Requests filters. The API lists tasks by one filter at a time (each is a feed of its own), so choosing one
 * clears the others; the refused calls take the same filter. `taskQuery` and `refusalQuery` are the query strings,
 * part of each listing's query key, so a change of filter reads its own listing.
 */
export function useRequestFilters() {
  const [chosen, setChosen] = useState<Chosen>(NONE);
  const choose = (change: Partial<Chosen>) => setChosen({ ...NONE, ...change });
  const params = new URLSearchParams();
  if (chosen.code) params.set('code', chosen.code);
  if (chosen.model) params.set('model', chosen.model);
  if (chosen.keyId) params.set('key_id', chosen.keyId);
  if (chosen.mode !== 'all') params.set('mode', chosen.mode);
  const refusalQuery = params.toString();
  if (chosen.outcome === 'succeeded' || chosen.outcome === 'failed') params.set('status', chosen.outcome);
  return {
    ...chosen,
    setOutcome: (outcome: Outcome) => choose({ outcome }),
    setCode: (code: string | null) => choose({ code }),
    setModel: (model: string | null) => choose({ model }),
    setKeyId: (keyId: string | null) => choose({ keyId }),
    setMode: (mode: Mode) => choose({ mode }),
    /** Refused calls are never a success, and are left out when only tasks that failed are asked for. */
    showRefused: chosen.outcome === 'all' || chosen.outcome === 'refused',
    showTasks: chosen.outcome !== 'refused',
    taskQuery: params.toString(),
    refusalQuery,
    /** An export's filter: the listings' own, and which calls it writes (`calls`: all, tasks or refused). */
    exportQuery: [
      params.toString(),
      `calls=${chosen.outcome === 'refused' ? 'refused' : chosen.outcome === 'all' ? 'all' : 'tasks'}`,
    ]
      .filter(Boolean)
      .join('&'),
  };
}

export type RequestFilters = ReturnType<typeof useRequestFilters>;
