/**
 * An operation's path as the request sends it. OpenAPI wants one path item per path, so documents tell operations on one URL apart by a
 * query or fragment in the path key: AWS's JSON protocol `/#X-Amz-Target=AWSGlue.BatchCreatePartition`, its query protocol
 * `/#Action=AttachInstances&Version=2011-01-01`, Flickr's `/rest?method=flickr.photos.search`. A fragment is never sent, so each
 * `name=value` pair after `?` or `#` becomes a fixed part of the request: `X-Amz-Target` a header, any other name a query parameter. A bare
 * name (`/tags/{arn}#tagKeys`) or a value that is a `{placeholder}` names a parameter the operation declares anyway, and is dropped.
 * Nothing here changes the path before the `?` or `#`, so nothing moves the call's origin.
 */
export interface Route {
  /** The path before any `?` or `#`. */
  path: string;
  /** Fixed query parameters, in the document's order. */
  query: [string, string][];
  /** Fixed headers: only those the fragment names with a value. */
  headers: [string, string][];
}

// AWS's JSON protocol dispatches on this header; every other name in a fragment is a query parameter of the query protocols.
const HEADER_KEYS = new Set(['x-amz-target']);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new Error(`its path's query or fragment ${JSON.stringify(text)} is not valid percent-encoding`);
  }
}

/** Split a path key of the document; throws a plain Error for text that is not valid percent-encoding. */
export function routeOf(pathKey: string): Route {
  const cut = pathKey.search(/[?#]/);
  if (cut < 0) return { path: pathKey, query: [], headers: [] };
  const route: Route = { path: pathKey.slice(0, cut), query: [], headers: [] };
  for (const pair of pathKey.slice(cut + 1).split(/[&?#]/)) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || /\{[^}]*\}/.test(pair)) continue;
    const name = decoded(pair.slice(0, eq));
    const value = decoded(pair.slice(eq + 1));
    (HEADER_KEYS.has(name.toLowerCase()) ? route.headers : route.query).push([name, value]);
  }
  return route;
}
