// The system clock resumes its saved offset and never runs backwards: not behind the newest time
// already recorded, and not when the wall clock steps back while it runs.
import { afterEach, expect, it, vi } from 'vitest';
import { systemClock, type ClockStorage } from '../../src/runtime/clock.js';

const T = Date.UTC(2026, 0, 15, 12, 0, 0);
const HOUR = 3_600_000;
let wall = T;
vi.spyOn(Date, 'now').mockImplementation(() => wall);
afterEach(() => {
  wall = T;
});

function storage(offsetMs: number, floor: number) {
  const saved: Array<[number, number]> = [];
  const store: ClockStorage = { load: () => ({ offsetMs, floor }), save: (offset, at) => void saved.push([offset, at]) };
  return { store, saved };
}

it('resumes the saved offset', () => {
  const clock = systemClock(storage(2 * 24 * HOUR, 0).store);
  expect(clock.now()).toBe(T + 2 * 24 * HOUR);
  expect(clock.offset()).toBe(2 * 24 * HOUR);
});

it('starts no earlier than the newest recorded time, as when the wall clock went back between runs', () => {
  const clock = systemClock(storage(0, T + HOUR).store);
  expect(clock.now()).toBe(T + HOUR);
  wall += 1000;
  expect(clock.now()).toBe(T + HOUR + 1000);
});

it('stands still while the wall clock steps back, and saves every advance', () => {
  const { store, saved } = storage(0, 0);
  const clock = systemClock(store);
  expect(clock.now()).toBe(T);
  wall = T - HOUR;
  expect(clock.now()).toBe(T);
  expect(clock.advance(60_000)).toBe(T + 60_000);
  expect(saved).toEqual([[HOUR + 60_000, T + 60_000]]);
});

it('asOf reads an earlier time while its work runs, never a later one, then the clock again', () => {
  const clock = systemClock();
  clock.advance(HOUR);
  const seen = clock.asOf(T + 15 * 60_000, () => [clock.now(), clock.asOf(T + 2 * HOUR, () => clock.now())]);
  // The inner asOf asked for a time after the outer one: the outer time stands.
  expect(seen).toEqual([T + 15 * 60_000, T + 15 * 60_000]);
  expect(clock.now()).toBe(T + HOUR);
  expect(clock.asOf(T + 2 * HOUR, () => clock.now())).toBe(T + HOUR);
  expect(() =>
    clock.asOf(T, () => {
      throw new Error('work failed');
    }),
  ).toThrow('work failed');
  expect(clock.now()).toBe(T + HOUR);
});

it('reports the offset exactly while the wall clock ticks between readings (sandbox clock --json printed 1 ms short)', () => {
  const clock = systemClock(storage(2 * 24 * HOUR, 0).store);
  // Every reading of the wall clock is a millisecond later than the one before.
  vi.mocked(Date.now).mockImplementation(() => wall++);
  expect(clock.offset()).toBe(2 * 24 * HOUR);
  vi.mocked(Date.now).mockImplementation(() => wall);
});
