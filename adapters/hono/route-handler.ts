import type { Context, Handler } from 'hono';
import type { JsonPage, ListOf, Service } from '../../src/index.js';
import type { RouterEnv } from './errors.js';
import { jsonAnswer, jsonTextAnswer } from './json-answer.js';
import type { Route } from './route.js';

/** Sends what a route's `call` resolved to; each takes the value its answer kind gives (the table checked that). */
type Answer = (c: Context<RouterEnv>, value: never) => Response;

const noContent: Answer = (c) => c.body(null, 204);
const text: Answer = (c, value: string) => c.text(value);
const json: Answer = (c, value: unknown) => jsonAnswer(c, value);

/**
 * When a page of a list has more after it, a `Link` header to the next page (RFC 8288), which
 * clients that only parse the body's known fields can still read. Set before the body is made.
 */
function linkToNext(c: Context<RouterEnv>, next: number | undefined): void {
  if (next === undefined) return;
  const url = new URL(c.req.url);
  url.searchParams.set('offset', String(next));
  c.header('Link', `<${url.pathname}${url.search}>; rel="next"`);
}

/** A page of a list: the body as the service answers it, and a link to the next page. */
const page: Answer = (c, list: ListOf<unknown>) => {
  linkToNext(c, list.next);
  return jsonAnswer(c, list);
};

/** JSON the service rendered itself, and for a page, a link to the next. */
const renderedJson: Answer = (c, rendered: JsonPage) => {
  linkToNext(c, rendered.next);
  return jsonTextAnswer(c, rendered.text);
};

/** How a route's answer is sent, from its table entry. */
function answerOf(route: Route): Answer {
  if (route.answer === 'none') return noContent;
  if (route.answer === 'text') return text;
  if (route.rendered) return renderedJson;
  return route.query === 'list' ? page : json;
}

/**
 * The Hono handler of a table entry. Everything the entry decides is looked up here, once, when
 * the router is made: a request costs the entry's own `call` and one function to answer.
 */
export function handlerOf(route: Route, service: Service): Handler<RouterEnv> {
  const { call, statuses } = route;
  const answer = answerOf(route) as (c: Context<RouterEnv>, value: unknown) => Response;
  if (statuses === undefined) return async (c) => answer(c, await call(service, c));
  return async (c) => {
    try {
      return answer(c, await call(service, c));
    } catch (error) {
      // Set on the way out rather than before the call: a context's first variable costs it a Map.
      c.set('statusOverrides', statuses);
      throw error;
    }
  };
}
