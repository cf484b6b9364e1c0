// The one list envelope: every list the sandbox answers (/v1/ and the control API alike) is
// {object: "list", data, has_more}, built here from a page of records and described by listOf().
import * as z from 'zod';
import { type LazySchema, lazySchema } from '../lazy-schema.js';

/** One page of a list and whether more rows follow. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

/** A page as the API answers it: `view` turns each record into its JSON view. */
export function listView<T, V>(page: Page<T>, view: (record: T) => V): ListView<V> {
  return { object: 'list', data: page.data.map((record) => view(record)), has_more: page.hasMore };
}

/** A whole list in one page (has_more false): for lists that are not paged, such as the fault rules. */
export function wholeList<T>(items: T[]): Page<T> {
  return { data: items, hasMore: false };
}

const envelopes = new WeakMap<LazySchema, LazySchema<z.ZodObject>>();

/** The schema of the envelope around `item`, built on first use; a named item (meta id Payment) gives a named list (PaymentList), one per item. */
export function listOf<T extends z.ZodType>(item: LazySchema<T>) {
  const envelope = lazySchema(() => {
    const built = z.object({
      object: z.literal('list'),
      data: z.array(item()).describe('newest first'),
      has_more: z.boolean().describe('true when another page follows; pass the id of the last item as starting_after'),
    });
    const id = z.globalRegistry.get(item())?.id;
    return id ? built.meta({ id: `${id}List` }) : built;
  });
  const known = envelopes.get(item) ?? envelope;
  envelopes.set(item, known);
  return known as typeof envelope;
}

/** The envelope's TS type. */
export interface ListView<V> {
  object: 'list';
  data: V[];
  has_more: boolean;
}
