// The container project's base image (test/container/podman.ts currentBase): the newest base made
// is built on, so CI builds the image on cached layers; a new one only when none exists (or PAYSANDBOX_NEW_BASE=1 asks).
import { describe, expect, it } from 'vitest';
import { currentBase } from '../container/podman.js';

const tag = (day: string) => `localhost/paysandbox-base:trixie-${day}`;

describe('the base the container image builds on', () => {
  it('is the newest base made, whatever its day', () => {
    expect(currentBase([tag('2026-11-24'), tag('2026-11-27'), 'localhost/paysandbox-base:test', tag('2026-11-25')])).toBe(
      tag('2026-11-27'),
    );
    expect(currentBase([tag('2025-01-02')])).toBe(tag('2025-01-02'));
  });

  it('is made when there is none, and never taken from a tag that is not a day', () => {
    expect(currentBase([])).toBeUndefined();
    expect(currentBase(['localhost/paysandbox-base:test', 'localhost/paysandbox-base:h-container', ''])).toBeUndefined();
  });
});
