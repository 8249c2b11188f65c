import { useState } from 'react';
import { daysBefore, utcDay } from '../dates';

/** The presets a range offers: today, and the last 7, 30 and 90 days (today included). */
export const RANGE_PRESETS = [1, 7, 30, 90] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A UTC day range as the usage pages keep it: from/to as typed, the preset it matches, and whether it may be sent.
 * A reversed range is `reversed`, shown to the person and never sent (the API would refuse it: 400).
 */
export function useDayRange(initial: RangePreset = 30) {
  const [to, setTo] = useState(utcDay());
  const [from, setFrom] = useState(daysBefore(utcDay(), initial - 1));
  const wellFormed = DAY.test(from) && DAY.test(to);
  const reversed = wellFormed && from > to;
  const today = utcDay();
  return {
    from,
    to,
    setFrom,
    setTo,
    reversed,
    valid: wellFormed && !reversed,
    preset: RANGE_PRESETS.find((days) => to === today && from === daysBefore(today, days - 1)),
    choose(days: RangePreset) {
      const end = utcDay();
      setTo(end);
      setFrom(daysBefore(end, days - 1));
    },
    query: `from=${from}&to=${to}`,
  };
}

export type DayRange = ReturnType<typeof useDayRange>;
