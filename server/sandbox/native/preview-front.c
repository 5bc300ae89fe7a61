// The preview proxy's fast path for plain requests (server/preview/preview-front.ts). A request
// through Node's http server and client costs ~300 µs of server CPU on this 2-core machine and
// made a 4 KiB page 2.2x its direct latency (bench:preview); even a bare Node relay is 1.5-1.7x.
// Here a thread of the native module carries the browser's connections: it reads each request's
// head, and when the request is one the JS proxy has already admitted on this connection (same
// preview host, same session cookie, a GET or HEAD without a body, same-origin, not a page for
// the Preview panel's frame, not Tandem's own paths, before the session's expiry), it sends the
// head on to the dev server rewritten as preview-headers.ts's forwardedHeaders does, and passes
// the answer back filtered as its answerHeaders does. Anything else is asked of JS (an event with
// the head), which either admits it (and gives the connection into the workspace) or takes the
// connection back, with every byte not yet used, into Node's http server for good.
//
// Both peers are hostile: the browser's side may be anyone holding the preview's address, the
// dev server is the workspace's code. So:
// - the request's head is parsed strictly, and anything this parser does not take whole (a bare
//   CR or LF, a folded line, HTTP/1.0, a body, odd bytes) goes to JS, where Node's own parser
//   decides; what reaches the dev server is a head written afresh, never the browser's bytes;
// - the answer's head is parsed as strictly: a malformed one is a 502, never passed on; its body
//   is framed afresh (a length passed as the one Content-Length, chunked bodies and bodies that
//   end with the connection re-chunked with no extensions or trailers), so nothing of the app's
//   framing reaches the browser;
// - one request at a time per connection (pipelined bytes wait), one connection into the
//   workspace per browser connection (never another grant's), bounded buffers (a head is at most
//   16 KiB, at most 64 KiB waits for a slow reader, then the dev server is not read);
// - an idle connection closes after 5 s, one whose head is still coming after 60 s (Node's
//   server's own keepAliveTimeout and headersTimeout).
// Why by hand: the one library made for parsing HTTP here, llhttp, is inside Node's binary with
// no header and a layout that changes with each Node release; this reads only what the fast path
// needs and hands everything else to Node. Linux only, plain C on Node-API, built by node-gyp.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include "relay-thread.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_HEAD (16 * 1024)
#define MAX_HEADERS 512
#define READ_CHUNK (64 * 1024)
#define MAX_WAITING (64 * 1024)
#define IDLE_MS 5000
#define HEAD_MS 60000
#define PREVIEW_COOKIE "tandem_preview"

typedef struct buf {
  char *data;
  size_t len, cap;
} buf;

static int buf_add(buf *b, const char *data, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + n) cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) return -1;
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, n);
  b->len += n;
  return 0;
}
static int buf_str(buf *b, const char *s) { return buf_add(b, s, strlen(s)); }
static void buf_drop(buf *b, size_t n) {
  if (n >= b->len) b->len = 0;
  else {
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
  }
}
static void buf_free(buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

typedef struct span {
  const char *at;
  size_t len;
} span;

typedef struct head {
  span first[3];  // request: method, target, version; answer: version, status, reason
  span names[MAX_HEADERS], values[MAX_HEADERS];
  int count;
} head;

enum { READ_HEAD, ASKING, AWAIT_ANSWER, BODY };
enum { NO_BODY, SIZED, CHUNKED, UNTIL_CLOSE };
enum { CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF, CH_TRAILER, CH_TRAILER_LF };

typedef struct conn conn;
typedef struct side {
  int fd;
  uint32_t events;
  conn *owner;
} side;

struct conn {
  double id;
  side sides[2];   // 0: the browser's connection, 1: the one into the workspace (fd -1: none)
  buf in[2];       // read from side i, not yet used
  buf out[2];      // to be written to side i
  int eof[2];
  int state;
  // What JS admitted on this connection.
  char *host, *cookie, *origin, *local;
  double exp;
  int admitted;     // JS admitted the head now waiting (it is served without the checks)
  // The request under way.
  size_t head_len;  // its head's length in in[0], until its answer begins
  int is_head;      // a HEAD request
  int close_after;  // the browser asked for the connection to close after it
  int retry;        // the workspace's connection closed before answering (asked of JS once)
  // Its answer.
  int framing;      // the app's
  int chunked_out;  // the browser's body is chunked (ours)
  int framed;       // the request loads a page into a frame (the Preview panel's): an HTML answer takes the script
  int injecting;    // the script's place in the page is still being looked for
  buf held;         // the page's bytes until then
  uint64_t left;    // SIZED: body bytes to come; CHUNKED: of the current chunk
  int chunk;
  size_t chunk_digits, trailer_len;
  int upstream_done;  // the workspace's connection is not reused after this answer
  int asks;           // the thread is done with it until JS answers: its event goes out last
  int answered;       // an answer went out (from then on an idle connection closes after IDLE_MS)
  int64_t since;      // when it began waiting for a head
  // Under the lock.
  int added, cancel, ready, finished, handed;
  conn *next, *next_work;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static conn *conns;
static conn *graveyard;  // handed back to JS: freed by the thread
static double next_id = 1;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static napi_threadsafe_function events_fn;

static int64_t now_ms(int clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

// ---- Parsing ----------------------------------------------------------------------------------

static int tchar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c && strchr("!#$%&'*+-.^_`|~", c));
}
static int value_char(unsigned char c) { return c == '\t' || (c >= 0x20 && c != 0x7f); }
static int span_is(span s, const char *text) { return s.len == strlen(text) && memcmp(s.at, text, s.len) == 0; }
static int span_is_ci(span s, const char *text) {
  return s.len == strlen(text) && strncasecmp(s.at, text, s.len) == 0;
}
static int contains_ci(span s, const char *text) {
  size_t len = strlen(text);
  for (size_t at = 0; at + len <= s.len; at++)
    if (strncasecmp(s.at + at, text, len) == 0) return 1;
  return 0;
}
static span trim(span s) {
  while (s.len && (s.at[0] == ' ' || s.at[0] == '\t')) s.at++, s.len--;
  while (s.len && (s.at[s.len - 1] == ' ' || s.at[s.len - 1] == '\t')) s.len--;
  return s;
}

// The end of a head (just past its blank line) within the first MAX_HEAD bytes: 0 when it has not
// all come, -1 when it never can (too long).
static long head_end(const buf *b) {
  size_t n = b->len < MAX_HEAD ? b->len : MAX_HEAD;
  for (size_t i = 3; i < n; i++)
    if (b->data[i] == '\n' && b->data[i - 1] == '\r' && b->data[i - 2] == '\n' && b->data[i - 3] == '\r')
      return (long)(i + 1);
  return b->len >= MAX_HEAD ? -1 : 0;
}

// Splits a head (ending in CRLF CRLF) into its first line's three parts and its header lines.
// Strict: every line ends in CRLF, no other CR or LF, no folded lines, names are tokens, values
// hold no control characters. -1 otherwise.
static int parse_head(const char *p, size_t n, head *h, int answer) {
  size_t at = 0;
  const char *line_end = memmem(p, n, "\r\n", 2);
  if (!line_end) return -1;
  size_t first_len = (size_t)(line_end - p);
  // The first line: three parts split by single spaces (an answer's reason may hold spaces, or be empty).
  const char *sp1 = memchr(p, ' ', first_len);
  if (!sp1) return -1;
  const char *rest = sp1 + 1;
  size_t rest_len = first_len - (size_t)(rest - p);
  const char *sp2 = memchr(rest, ' ', rest_len);
  if (!sp2 && !answer) return -1;
  h->first[0] = (span){p, (size_t)(sp1 - p)};
  h->first[1] = (span){rest, sp2 ? (size_t)(sp2 - rest) : rest_len};
  h->first[2] = sp2 ? (span){sp2 + 1, first_len - (size_t)(sp2 + 1 - p)} : (span){rest + rest_len, 0};
  for (size_t i = 0; i < first_len; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c == '\r' || c == '\n' || c == 0 || c == 0x7f || (c < 0x20 && c != '\t')) return -1;
  }
  at = first_len + 2;
  h->count = 0;
  while (at < n) {
    const char *line = p + at;
    const char *end = memmem(line, n - at, "\r\n", 2);
    if (!end) return -1;
    size_t len = (size_t)(end - line);
    if (len == 0) return at + 2 == n ? 0 : -1;
    if (h->count == MAX_HEADERS) return -1;
    const char *colon = memchr(line, ':', len);
    if (!colon || colon == line) return -1;
    for (const char *c = line; c < colon; c++)
      if (!tchar((unsigned char)*c)) return -1;
    for (const char *c = colon + 1; c < end; c++)
      if (!value_char((unsigned char)*c)) return -1;
    h->names[h->count] = (span){line, (size_t)(colon - line)};
    h->values[h->count] = trim((span){colon + 1, (size_t)(end - colon - 1)});
    h->count++;
    at += len + 2;
  }
  return -1;
}

// ---- The request ------------------------------------------------------------------------------

static int hop_by_hop(span name) {
  static const char *names[] = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                "te", "trailer", "upgrade", NULL};
  for (int i = 0; names[i]; i++)
    if (span_is_ci(name, names[i])) return 1;
  return 0;
}

// Whether `list` (a comma-separated header value) holds `token`, in any case.
static int has_token(span list, const char *token) {
  size_t at = 0;
  while (at <= list.len) {
    const char *comma = memchr(list.at + at, ',', list.len - at);
    size_t end = comma ? (size_t)(comma - list.at) : list.len;
    if (span_is_ci(trim((span){list.at + at, end - at}), token)) return 1;
    at = end + 1;
  }
  return 0;
}

// The preview's session cookie in a Cookie value as cookiesWithout reads it: 1 when it is there
// exactly once with `value`; the rest (every other cookie, "; "-joined) goes into `rest`.
static int session_cookie(span header, const char *value, buf *rest) {
  int found = 0, ok = 0;
  size_t at = 0;
  while (at <= header.len) {
    const char *semi = memchr(header.at + at, ';', header.len - at);
    size_t end = semi ? (size_t)(semi - header.at) : header.len;
    span part = trim((span){header.at + at, end - at});
    at = end + 1;
    if (!part.len) continue;
    const char *eq = memchr(part.at, '=', part.len);
    span name = {part.at, eq ? (size_t)(eq - part.at) : part.len};
    if (span_is(name, PREVIEW_COOKIE)) {
      found++;
      ok = eq && span_is((span){eq + 1, part.len - (size_t)(eq + 1 - part.at)}, value);
      continue;
    }
    if (rest->len && buf_str(rest, "; ")) return -1;
    if (buf_add(rest, part.at, part.len)) return -1;
  }
  return found == 1 && ok;
}

// Writes the request's head as the dev server gets it, when the request is one this connection's
// admission covers (or JS admitted this very head): 1 when written, 0 when JS must be asked, -1
// when out of memory.
static int forward(conn *c, const head *h) {
  int checked = !c->admitted;
  if (!c->host || c->sides[1].fd < 0) return 0;
  if (!span_is(h->first[2], "HTTP/1.1")) return 0;
  int is_get = span_is(h->first[0], "GET"), is_head = span_is(h->first[0], "HEAD");
  if (!is_get && !is_head) return 0;
  span target = h->first[1];
  if (!target.len || target.at[0] != '/' || (target.len > 1 && (target.at[1] == '/' || target.at[1] == '\\')))
    return 0;
  for (size_t i = 0; i < target.len; i++)
    if ((unsigned char)target.at[i] < 0x21 || (unsigned char)target.at[i] > 0x7e) return 0;
  if (checked) {
    if ((double)now_ms(CLOCK_REALTIME) >= c->exp) return 0;
    // Tandem's own paths (the entry, the link, the frame's script), however written, are JS's
    // (tandemPath): a path, before its query, that could spell one.
    span path = target;
    for (size_t i = 0; i < target.len; i++)
      if (target.at[i] == '?' || target.at[i] == '#') {
        path.len = i;
        break;
      }
    if (contains_ci(path, "__tandem") || memmem(path.at, path.len, "/.", 2) || memchr(path.at, '%', path.len) ||
        memchr(path.at, '\\', path.len))
      return 0;
  }
  int hosts = 0, cookies = 0, close_after = 0, dests = 0, framed = 0;
  span cookie = {0};
  for (int i = 0; i < h->count; i++) {
    span name = h->names[i], value = h->values[i];
    if (span_is_ci(name, "host")) {
      hosts++;
      if (!span_is(value, c->host)) return 0;
    } else if (span_is_ci(name, "cookie")) {
      cookies++;
      cookie = value;
    } else if (span_is_ci(name, "content-length")) {
      if (!span_is(value, "0")) return 0;
    } else if (span_is_ci(name, "transfer-encoding") || span_is_ci(name, "upgrade") || span_is_ci(name, "expect"))
      return 0;
    else if (span_is_ci(name, "connection")) {
      if (has_token(value, "upgrade")) return 0;
      if (has_token(value, "close")) close_after = 1;
    } else if (checked && span_is_ci(name, "origin") && !span_is(value, c->origin))
      return 0;
    else if (span_is_ci(name, "sec-fetch-dest")) {
      // A page for a frame takes the frame's script (preview-server.ts's `framed`: exactly this value).
      dests++;
      framed = span_is(value, "iframe");
      if (checked && !framed && !span_is(value, "empty") && !span_is(value, "document") && !span_is(value, "script") &&
          !span_is(value, "style") && !span_is(value, "image") && !span_is(value, "font") &&
          !span_is(value, "manifest") && !span_is(value, "worker") && !span_is(value, "sharedworker") &&
          !span_is(value, "serviceworker") && !span_is(value, "audio") && !span_is(value, "video") &&
          !span_is(value, "track"))
        return 0;  // anything new: JS's
    }
  }
  if (hosts != 1 || cookies != 1 || dests > 1) return 0;
  buf rest = {0};
  int found = session_cookie(cookie, c->cookie, &rest);
  if (found != 1) {
    buf_free(&rest);
    return found < 0 ? -1 : 0;
  }
  buf *o = &c->out[1];
  size_t origin_len = strlen(c->origin);
  int bad = buf_add(o, h->first[0].at, h->first[0].len) || buf_str(o, " ") || buf_add(o, target.at, target.len) ||
            buf_str(o, " HTTP/1.1\r\nHost: ") || buf_str(o, c->local) || buf_str(o, "\r\n");
  for (int i = 0; i < h->count && !bad; i++) {
    span name = h->names[i], value = h->values[i];
    if (span_is_ci(name, "host") || span_is_ci(name, "cookie") || span_is_ci(name, "expect") || hop_by_hop(name) ||
        (name.len >= 9 && strncasecmp(name.at, "x-tandem-", 9) == 0) ||
        (framed && span_is_ci(name, "accept-encoding")))  // a page the script is added to must come uncompressed
      continue;
    bad = buf_add(o, name.at, name.len) || buf_str(o, ": ");
    if (!bad && (span_is_ci(name, "origin") || span_is_ci(name, "referer")) && value.len >= origin_len &&
        memcmp(value.at, c->origin, origin_len) == 0)
      bad = buf_str(o, "http://") || buf_str(o, c->local) || buf_add(o, value.at + origin_len, value.len - origin_len);
    else if (!bad)
      bad = buf_add(o, value.at, value.len);
    if (!bad) bad = buf_str(o, "\r\n");
  }
  if (!bad && rest.len) bad = buf_str(o, "Cookie: ") || buf_add(o, rest.data, rest.len) || buf_str(o, "\r\n");
  if (!bad) bad = buf_str(o, "\r\n");
  buf_free(&rest);
  if (bad) return -1;
  c->is_head = is_head;
  c->close_after = close_after;
  c->framed = framed;
  return 1;
}

// ---- The answer -------------------------------------------------------------------------------

// An app's Set-Cookie as the browser gets it (preview-headers.ts's appCookie): 0 to drop it.
static int app_cookie(span value, buf *o) {
  const char *semi = memchr(value.at, ';', value.len);
  span pair = {value.at, semi ? (size_t)(semi - value.at) : value.len};
  const char *eq = memchr(pair.at, '=', pair.len);
  span name = eq ? trim((span){pair.at, (size_t)(eq - pair.at)}) : (span){pair.at, 0};
  if (!eq || name.len == 0 || span_is(name, PREVIEW_COOKIE)) return 0;
  if (buf_str(o, "Set-Cookie: ") || buf_add(o, pair.at, pair.len)) return -1;
  size_t at = pair.len;
  while (at < value.len) {
    // value.at[at] is a ';'
    const char *next = memchr(value.at + at + 1, ';', value.len - at - 1);
    size_t end = next ? (size_t)(next - value.at) : value.len;
    span attribute = {value.at + at + 1, end - at - 1};
    span lead = trim(attribute);
    int domain = lead.len >= 6 && strncasecmp(lead.at, "domain", 6) == 0 &&
                 (lead.len == 6 || trim((span){lead.at + 6, lead.len - 6}).len == 0 ||
                  trim((span){lead.at + 6, lead.len - 6}).at[0] == '=');
    if (!domain && (buf_str(o, ";") || buf_add(o, attribute.at, attribute.len))) return -1;
    at = end;
  }
  return buf_str(o, "\r\n") ? -1 : 1;
}

// The app's Cache-Control directives, but for those only shared caches read, after `private`.
static int private_caching(const buf *values, buf *o) {
  if (buf_str(o, "Cache-Control: private")) return -1;
  size_t at = 0;
  while (at < values->len) {
    const char *comma = memchr(values->data + at, ',', values->len - at);
    size_t end = comma ? (size_t)(comma - values->data) : values->len;
    span d = trim((span){values->data + at, end - at});
    at = end + 1;
    if (!d.len || span_is_ci(d, "public") || span_is_ci(d, "private") || span_is_ci(d, "proxy-revalidate") ||
        (d.len >= 8 && strncasecmp(d.at, "s-maxage", 8) == 0 &&
         (d.len == 8 || trim((span){d.at + 8, d.len - 8}).len == 0 || trim((span){d.at + 8, d.len - 8}).at[0] == '=')))
      continue;
    if (buf_str(o, ", ") || buf_add(o, d.at, d.len)) return -1;
  }
  return buf_str(o, "\r\n");
}

static int digits(span s, uint64_t *value) {
  if (!s.len || s.len > 15) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < s.len; i++) {
    if (s.at[i] < '0' || s.at[i] > '9') return 0;
    v = v * 10 + (uint64_t)(s.at[i] - '0');
  }
  *value = v;
  return 1;
}

// The page Node's path answers an answer it cannot pass on with (preview-server.ts's `notHttp`).
static const char BAD_GATEWAY_PAGE[] =
    "<!doctype html><meta charset=\"utf-8\"><title>The server's answer is not valid HTTP</title><body "
    "style=\"font:15px system-ui;margin:15vh auto;max-width:36em;color:#ccc;background:#1e1e1e\"><h1 "
    "style=\"font-size:20px\">The server's answer is not valid HTTP</h1><p>Tandem cannot pass it on.</p>";

// The 502, its length the page's; a HEAD's has no body.
static int bad_gateway(conn *c) {
  char head[192];
  snprintf(head, sizeof head,
           "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n"
           "Content-Length: %zu\r\n\r\n",
           sizeof BAD_GATEWAY_PAGE - 1);
  return buf_str(&c->out[0], head) || (!c->is_head && buf_add(&c->out[0], BAD_GATEWAY_PAGE, sizeof BAD_GATEWAY_PAGE - 1));
}

// Reads the answer's head at the start of in[1] and writes it on to the browser. 1 when done, 0
// when more must come, -1 when it is no HTTP the browser may be given (the 502 is queued), -2 when
// out of memory.
static int answer_head(conn *c) {
  buf *in = &c->in[1];
  for (;;) {
    long end = head_end(in);
    if (end == 0) return 0;
    head h;
    uint64_t status = 0;
    if (end < 0 || parse_head(in->data, (size_t)end, &h, 1) != 0 ||
        !(span_is(h.first[0], "HTTP/1.1") || span_is(h.first[0], "HTTP/1.0")) || h.first[1].len != 3 ||
        !digits(h.first[1], &status) || status < 100 || status == 101)
      return -1;
    if (status < 200) {
      // An interim answer (100 Continue, 103 Early Hints) is not passed on.
      buf_drop(in, (size_t)end);
      continue;
    }
    int sized = 0, chunked = 0, lengths = 0, types = 0, html = 0, encoded = 0;
    uint64_t length = 0;
    buf caching = {0};
    c->upstream_done = span_is(h.first[0], "HTTP/1.0");
    for (int i = 0; i < h.count; i++) {
      span name = h.names[i], value = h.values[i];
      if (span_is_ci(name, "transfer-encoding")) {
        if (chunked || !span_is_ci(value, "chunked")) return -1;
        chunked = 1;
      } else if (span_is_ci(name, "content-length")) {
        uint64_t v;
        if (!digits(value, &v) || (lengths && v != length)) return -1;
        lengths++;
        length = v;
        sized = 1;
      } else if (span_is_ci(name, "connection") && has_token(value, "close"))
        c->upstream_done = 1;
      else if (span_is_ci(name, "content-type") && types++ == 0)
        html = value.len >= 9 && strncasecmp(value.at, "text/html", 9) == 0;
      else if (span_is_ci(name, "content-encoding"))
        encoded = 1;
    }
    if (chunked && sized) return -1;
    int bodyless = c->is_head || status == 204 || status == 304;
    // A page loaded into the Preview panel's frame takes its script (frame-script.ts): it changes length.
    int inject = c->framed && html && !encoded && !bodyless;
    buf *o = &c->out[0];
    // The reason phrase as the browser gets it: printable, else none.
    span reason = h.first[2];
    for (size_t i = 0; i < reason.len; i++)
      if ((unsigned char)reason.at[i] >= 0x7f) reason.len = 0;
    int bad = buf_str(o, "HTTP/1.1 ") || buf_add(o, h.first[1].at, 3) || buf_str(o, " ") ||
              buf_add(o, reason.at, reason.len) || buf_str(o, "\r\n");
    for (int i = 0; i < h.count && !bad; i++) {
      span name = h.names[i], value = h.values[i];
      if (hop_by_hop(name) || span_is_ci(name, "clear-site-data") || span_is_ci(name, "content-length") ||
          (inject && span_is_ci(name, "etag")))
        continue;
      if (span_is_ci(name, "cache-control")) {
        bad = (caching.len && buf_str(&caching, ",")) || buf_add(&caching, value.at, value.len);
        continue;
      }
      if (span_is_ci(name, "set-cookie")) {
        bad = app_cookie(value, o) < 0;
        continue;
      }
      bad = buf_add(o, name.at, name.len) || buf_str(o, ": ") || buf_add(o, value.at, value.len) || buf_str(o, "\r\n");
    }
    if (!bad) bad = private_caching(&caching, o);
    buf_free(&caching);
    char line[64];
    c->injecting = inject;
    c->held.len = 0;
    c->chunked_out = 0;
    c->left = 0;
    if (bodyless) {
      c->framing = NO_BODY;
      if (sized && !bad) {
        snprintf(line, sizeof line, "Content-Length: %llu\r\n", (unsigned long long)length);
        bad = buf_str(o, line);
      }
    } else {
      c->framing = sized ? SIZED : chunked ? CHUNKED : UNTIL_CLOSE;
      c->left = sized ? length : 0;
      c->chunk = CH_SIZE;
      c->chunk_digits = 0;
      c->trailer_len = 0;
      if (!sized && !chunked) c->upstream_done = 1;
      c->chunked_out = !sized || inject;
      if (!c->chunked_out) snprintf(line, sizeof line, "Content-Length: %llu\r\n", (unsigned long long)length);
      if (!bad) bad = buf_str(o, c->chunked_out ? "Transfer-Encoding: chunked\r\n" : line);
    }
    if (!bad) bad = buf_str(o, "\r\n");
    if (bad) return -2;
    buf_drop(in, (size_t)end);
    return 1;
  }
}

static int hex(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

// The frame's script, and where it goes in a page (frame-script.ts's insertionPoint, on the
// page's bytes as latin1, which is what that reads too): after `<head ...>`; once it is clear there
// is none (the body began, the page ended, or 16 KiB came without one), after `<html ...>`, else
// after a doctype, else first. -1: read on.
static const char FRAME_TAG[] = "<script src=\"/__tandem/preview.js\"></script>";
#define LOOK_AHEAD (16 * 1024)

// JavaScript's \s within latin1.
static int js_space(unsigned char c) { return c == ' ' || (c >= 9 && c <= 13) || c == 0xa0; }
static int lower_is(const char *p, size_t n, const char *text) {
  size_t len = strlen(text);
  if (n < len) return 0;
  for (size_t i = 0; i < len; i++)
    if ((char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]) != text[i]) return 0;
  return 1;
}

// Where the first complete `<name>` or `<name ...>` ends, or -1 (none yet, or the first one's `>` not yet come).
static long after_tag(const char *p, size_t n, const char *name) {
  size_t len = strlen(name);
  for (size_t at = 0; at + 1 + len <= n; at++) {
    if (p[at] != '<' || !lower_is(p + at + 1, n - at - 1, name)) continue;
    size_t next = at + 1 + len;
    if (next >= n) return -1;
    if (p[next] == '>') return (long)next + 1;
    if (js_space((unsigned char)p[next])) {
      const char *close = memchr(p + at, '>', n - at);
      return close ? (long)(close - p) + 1 : -1;
    }
  }
  return -1;
}

static long insertion_point(const char *p, size_t n, int ended) {
  long head = after_tag(p, n, "head");
  if (head >= 0) return head;
  int body = 0;
  for (size_t at = 0; at + 5 < n && !body; at++)
    body = p[at] == '<' && lower_is(p + at + 1, n - at - 1, "body") && (p[at + 5] == '>' || js_space((unsigned char)p[at + 5]));
  if (!ended && n < LOOK_AHEAD && !body) return -1;
  long html = after_tag(p, n, "html");
  if (html >= 0) return html;
  size_t at = 0;
  while (at < n && js_space((unsigned char)p[at])) at++;
  if (lower_is(p + at, n - at, "<!doctype")) {
    const char *close = memchr(p + at + 9, '>', n - at - 9);
    if (close) return (long)(close - p) + 1;
  }
  return 0;
}

// Body bytes for the browser, framed as its answer is (a length passed on, or chunks of ours).
static int emit(conn *c, const char *data, size_t n) {
  buf *o = &c->out[0];
  if (!n) return 0;
  if (!c->chunked_out) return buf_add(o, data, n);
  char line[32];
  snprintf(line, sizeof line, "%zx\r\n", n);
  return buf_str(o, line) || buf_add(o, data, n) || buf_str(o, "\r\n");
}

// The page's bytes, the frame's script placed in them once its place is known.
static int body_data(conn *c, const char *data, size_t n, int ended) {
  if (!c->injecting) return emit(c, data, n);
  if (n && buf_add(&c->held, data, n)) return -1;
  const char *held = c->held.data ? c->held.data : "";
  long at = insertion_point(held, c->held.len, ended);
  if (at < 0) return 0;
  c->injecting = 0;
  buf page = {0};
  int bad = buf_add(&page, held, (size_t)at) || buf_add(&page, FRAME_TAG, sizeof FRAME_TAG - 1) ||
            buf_add(&page, held + at, c->held.len - (size_t)at) || emit(c, page.data, page.len);
  buf_free(&page);
  buf_free(&c->held);
  return bad ? -1 : 0;
}

static int body_end(conn *c) {
  if (c->injecting && body_data(c, NULL, 0, 1)) return -1;
  return c->chunked_out ? buf_str(&c->out[0], "0\r\n\r\n") : 0;
}

// Passes what came of the answer's body on: 1 when the answer is complete, 0 when more must
// come, -1 when the app broke its own framing, -2 when out of memory. What is read past the
// answer's end stays in in[1].
static int answer_body(conn *c) {
  buf *in = &c->in[1];
  if (c->framing == NO_BODY) return 1;
  if (c->framing == SIZED) {
    size_t n = in->len < c->left ? in->len : (size_t)c->left;
    if (n && body_data(c, in->data, n, 0)) return -2;
    buf_drop(in, n);
    c->left -= n;
    if (c->left) return 0;
    return body_end(c) ? -2 : 1;
  }
  if (c->framing == UNTIL_CLOSE) {
    if (in->len && body_data(c, in->data, in->len, 0)) return -2;
    in->len = 0;
    if (!c->eof[1]) return 0;
    return body_end(c) ? -2 : 1;
  }
  // CHUNKED: the data of what came goes on as one piece.
  buf data = {0};
  size_t at = 0;
  int done = 0, failed = 0;
  while (at < in->len && !done && !failed) {
    char ch = in->data[at];
    switch (c->chunk) {
      case CH_SIZE: {
        int v = hex(ch);
        if (v >= 0) {
          if (++c->chunk_digits > 15) failed = 1;
          c->left = c->left * 16 + (uint64_t)v;
          at++;
        } else if (c->chunk_digits == 0) failed = 1;
        else if (ch == '\r') c->chunk = CH_SIZE_LF, at++;
        else if (ch == ';' || ch == ' ' || ch == '\t') c->chunk = CH_EXT, at++;
        else failed = 1;
        break;
      }
      case CH_EXT:
        if (ch == '\r') c->chunk = CH_SIZE_LF;
        else if (!value_char((unsigned char)ch) || ++c->trailer_len > MAX_HEAD) failed = 1;
        at++;
        break;
      case CH_SIZE_LF:
        if (ch != '\n') failed = 1;
        at++;
        c->trailer_len = 0;
        c->chunk = c->left ? CH_DATA : CH_TRAILER;
        break;
      case CH_DATA: {
        size_t n = in->len - at < c->left ? in->len - at : (size_t)c->left;
        if (buf_add(&data, in->data + at, n)) failed = 2;
        at += n;
        c->left -= n;
        if (!c->left) c->chunk = CH_DATA_CR;
        break;
      }
      case CH_DATA_CR:
        if (ch != '\r') failed = 1;
        at++;
        c->chunk = CH_DATA_LF;
        break;
      case CH_DATA_LF:
        if (ch != '\n') failed = 1;
        at++;
        c->chunk = CH_SIZE;
        c->chunk_digits = 0;
        break;
      case CH_TRAILER:
        // A trailer line, or the blank line that ends the body; trailers are not passed on.
        if (ch == '\r') c->chunk = CH_TRAILER_LF;
        else if (!value_char((unsigned char)ch) || ++c->trailer_len > MAX_HEAD) failed = 1;
        at++;
        break;
      case CH_TRAILER_LF:
        if (ch != '\n') failed = 1;
        at++;
        if (c->trailer_len == 0) done = 1;
        c->trailer_len = 0;
        c->chunk = CH_TRAILER;
        break;
    }
  }
  int bad = !failed && data.len && body_data(c, data.data, data.len, 0);
  buf_free(&data);
  if (failed == 2 || bad) return -2;
  if (failed) return -1;
  buf_drop(in, at);
  if (done) return body_end(c) ? -2 : 1;
  return 0;
}

// ---- The thread -------------------------------------------------------------------------------

typedef struct event {
  double id;
  int ended;
  int retry;
  char *head;
  size_t head_len;
} event;

static void send_event(conn *c, int ended, const char *head_bytes, size_t head_len) {
  event *e = calloc(1, sizeof *e);
  if (!e) return;
  e->id = c->id;
  e->ended = ended;
  e->retry = c->retry;
  if (head_len) {
    e->head = malloc(head_len);
    if (!e->head) {
      free(e);
      return;
    }
    memcpy(e->head, head_bytes, head_len);
    e->head_len = head_len;
  }
  if (napi_call_threadsafe_function(events_fn, e, napi_tsfn_blocking) != napi_ok) {
    free(e->head);
    free(e);
  }
}

static void unwatch(conn *c, int i) {
  side *s = &c->sides[i];
  if (s->events && s->fd >= 0) epoll_ctl(epoll_fd, EPOLL_CTL_DEL, s->fd, NULL);
  s->events = 0;
}

static void close_upstream(conn *c) {
  unwatch(c, 1);
  if (c->sides[1].fd >= 0) close(c->sides[1].fd);
  c->sides[1].fd = -1;
  c->in[1].len = c->out[1].len = 0;
  c->eof[1] = 0;
}

static void finish(conn *c) {
  pthread_mutex_lock(&lock);
  c->finished = 1;
  for (conn **at = &conns; *at; at = &(*at)->next)
    if (*at == c) {
      *at = c->next;
      break;
    }
  pthread_mutex_unlock(&lock);
  close_upstream(c);
  unwatch(c, 0);
  if (c->sides[0].fd >= 0) close(c->sides[0].fd);
  c->sides[0].fd = -1;
  send_event(c, 1, NULL, 0);
}

static void free_conn(conn *c) {
  for (int i = 0; i < 2; i++) {
    buf_free(&c->in[i]);
    buf_free(&c->out[i]);
  }
  buf_free(&c->held);
  free(c->host);
  free(c->cookie);
  free(c->origin);
  free(c->local);
  free(c);
}

static int watch(conn *c, int i, uint32_t want) {
  side *s = &c->sides[i];
  if (s->fd < 0 || want == s->events) return 0;
  struct epoll_event event = {.events = want, .data.ptr = s};
  int op = want == 0 ? EPOLL_CTL_DEL : s->events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
  if (epoll_ctl(epoll_fd, op, s->fd, &event) != 0) return -1;
  s->events = want;
  return 0;
}

// Writes what waits for side i. -1 when the socket failed.
static int flush(conn *c, int i) {
  buf *o = &c->out[i];
  size_t done = 0;
  while (done < o->len) {
    ssize_t sent = send(c->sides[i].fd, o->data + done, o->len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return -1;
    }
    done += (size_t)sent;
  }
  buf_drop(o, done);
  return 0;
}

static char chunk[READ_CHUNK];

// One read from side i into in[i]. -1 when the socket failed.
static int take(conn *c, int i) {
  ssize_t got;
  do got = read(c->sides[i].fd, chunk, sizeof chunk);
  while (got < 0 && errno == EINTR);
  if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
  if (got == 0) c->eof[i] = 1;
  else if (buf_add(&c->in[i], chunk, (size_t)got)) return -1;
  return 0;
}

static void app_gone(conn *c) {
  c->eof[1] = 1;
  c->out[1].len = 0;
}

// Moves the connection on as far as what has come allows. -1: close it.
static int advance(conn *c) {
  for (;;) {
    if (c->state == READ_HEAD) {
      if (c->out[0].len) return 0;  // the last answer is still going out
      // The browser asked to close, or hung up (Node's server answers no request after that).
      if (c->close_after || c->eof[0]) return -1;
      long end = head_end(&c->in[0]);
      if (end == 0) return 0;
      head h;
      int parsed = end > 0 ? parse_head(c->in[0].data, (size_t)end, &h, 0) : -1;
      int sent = parsed == 0 ? forward(c, &h) : 0;
      if (sent < 0) return -1;
      if (!sent) {
        // A head JS admitted and this cannot serve after all: JS takes the connection back.
        if (c->admitted) c->retry = 1;
        c->admitted = 0;
        c->state = ASKING;
        c->head_len = end > 0 ? (size_t)end : 0;
        c->asks = 1;
        return 0;
      }
      c->admitted = 0;
      c->head_len = (size_t)end;
      c->state = AWAIT_ANSWER;
      continue;
    }
    if (c->state == AWAIT_ANSWER) {
      if (c->in[1].len == 0 && c->eof[1]) {
        // The dev server closed a kept connection before answering: JS is asked once more (it takes
        // the connection back, and its client tries again).
        close_upstream(c);
        c->retry = 1;
        c->state = ASKING;
        c->asks = 1;
        return 0;
      }
      int got = answer_head(c);
      if (got == 0) {
        if (c->eof[1]) got = -1;
        else return 0;
      }
      if (got == -2) return -1;
      c->retry = 0;
      buf_drop(&c->in[0], c->head_len);
      c->head_len = 0;
      if (got < 0) {
        if (bad_gateway(c)) return -1;
        close_upstream(c);
        c->state = READ_HEAD;
        c->answered = 1;
        c->since = now_ms(CLOCK_MONOTONIC);
        continue;
      }
      c->state = BODY;
      continue;
    }
    if (c->state == BODY) {
      int got = answer_body(c);
      if (got < 0) return -1;  // the head went out: the browser sees the connection break
      if (got == 0) {
        if (c->eof[1]) return -1;
        return 0;
      }
      // Anything the app sent past its answer, or a connection it ends: not used again.
      if (c->upstream_done || c->in[1].len || c->eof[1]) close_upstream(c);
      c->state = READ_HEAD;
      c->answered = 1;
      c->since = now_ms(CLOCK_MONOTONIC);
      continue;
    }
    return 0;  // ASKING: JS has it
  }
}

// After anything happened: epoll follows what the connection waits for now.
static int rewatch(conn *c) {
  if (c->state == ASKING) return 0;
  uint32_t browser = 0, app = 0;
  if (c->out[0].len) browser |= EPOLLOUT;
  // The browser is read while its bytes have room (pipelined ones wait), and for its hang-up.
  if (!c->eof[0] && c->in[0].len < MAX_HEAD + READ_CHUNK) browser |= EPOLLIN;
  if (c->out[1].len) app |= EPOLLOUT;
  // The dev server is read while the browser takes what it sends; between answers, for its hang-up.
  if (!c->eof[1] && c->out[0].len < MAX_WAITING) app |= EPOLLIN;
  return watch(c, 0, browser) || watch(c, 1, app);
}

// Handles what happened on side i (nothing: just moves on). 1 when the connection was closed
// (the caller frees it); once it asks JS, the thread does not touch it again until JS answers.
static int step(conn *c, int i, uint32_t happened) {
  int failed = 0;
  if (c->sides[i].fd < 0) happened = 0;  // an event of a connection into the workspace closed since
  if (happened & EPOLLOUT) failed = flush(c, i) != 0;
  if (!failed && (happened & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !c->eof[i]) failed = take(c, i) != 0;
  // The connection into the workspace breaking is its hang-up: between answers it is let go, before
  // an answer the request is asked of JS again, during one the browser's connection breaks too.
  if (failed && i == 1) failed = 0, app_gone(c);
  // The browser hung up, or broke, during an answer: the request ends (as in Node's server).
  if (!failed && i == 0 && c->eof[0] && c->state != READ_HEAD) failed = 1;
  // Between answers, anything from the dev server (its hang-up, or bytes nobody asked for) ends its connection.
  if (!failed && i == 1 && c->state == READ_HEAD && (c->eof[1] || c->in[1].len)) close_upstream(c);
  if (!failed) failed = advance(c) != 0;
  if (!failed && c->state != ASKING) {
    failed = flush(c, 0) != 0;
    if (!failed && c->sides[1].fd >= 0 && flush(c, 1) != 0) app_gone(c);
  }
  if (!failed && c->state != ASKING) failed = advance(c) != 0;
  if (!failed && c->state != ASKING) failed = rewatch(c) != 0;
  if (failed) {
    finish(c);
    return 1;
  }
  if (c->state == ASKING && c->asks) {
    c->asks = 0;
    unwatch(c, 0);
    unwatch(c, 1);
    send_event(c, 0, c->in[0].data, c->head_len);
  }
  return 0;
}

static void *run(void *unused) {
  (void)unused;
  struct epoll_event events[64];
  int64_t swept = now_ms(CLOCK_MONOTONIC);
  for (;;) {
    int count = epoll_wait(epoll_fd, events, 64, 1000);
    if (count < 0) {
      if (errno == EINTR) continue;
      perror("preview-front: epoll_wait");
      return NULL;
    }
    conn *done = NULL;
    for (int n = 0; n < count; n++) {
      side *s = events[n].data.ptr;
      if (s == NULL) {
        woken();
        conn *work = NULL, *dead;
        pthread_mutex_lock(&lock);
        for (conn *c = conns; c; c = c->next)
          if (!c->added || c->cancel || c->ready) {
            c->next_work = work;
            work = c;
          }
        dead = graveyard;
        graveyard = NULL;
        pthread_mutex_unlock(&lock);
        for (conn *c = dead, *next; c; c = next) {
          next = c->next_work;
          c->next_work = done;
          done = c;
        }
        for (conn *c = work, *next; c; c = next) {
          next = c->next_work;
          int cancel, ready;
          pthread_mutex_lock(&lock);
          cancel = c->cancel;
          ready = c->ready;
          c->ready = 0;
          c->added = 1;
          pthread_mutex_unlock(&lock);
          int closed = 1;
          if (cancel) finish(c);
          else {
            if (ready) c->state = READ_HEAD;
            if (!c->since) c->since = now_ms(CLOCK_MONOTONIC);
            closed = step(c, 0, 0);
          }
          if (closed) {
            c->next_work = done;
            done = c;
          }
        }
        continue;
      }
      conn *c = s->owner;
      if (c->finished || c->state == ASKING) continue;
      if (step(c, (int)(s - c->sides), events[n].events)) {
        c->next_work = done;
        done = c;
      }
    }
    // Connections silent past their time: closed, as Node's server closes them.
    int64_t now = now_ms(CLOCK_MONOTONIC);
    if (now - swept >= 500) {
      swept = now;
      conn *late = NULL;
      pthread_mutex_lock(&lock);
      for (conn *c = conns; c; c = c->next)
        if (c->added && !c->finished && c->state == READ_HEAD && c->out[0].len == 0 && c->since &&
            now - c->since >= (c->answered && c->in[0].len == 0 ? IDLE_MS : HEAD_MS)) {
          c->next_work = late;
          late = c;
        }
      pthread_mutex_unlock(&lock);
      for (conn *c = late, *next; c; c = next) {
        next = c->next_work;
        finish(c);
        c->next_work = done;
        done = c;
      }
    }
    for (conn *c = done, *next; c; c = next) {
      next = c->next_work;
      free_conn(c);
    }
  }
}


static void start(void) { start_thread(run); }

// ---- Node-API ---------------------------------------------------------------------------------

static napi_value string_of(napi_env env, span s) {
  napi_value value;
  napi_create_string_latin1(env, s.at, s.len, &value);
  return value;
}

// Calls the JS listener with (id, null) when a connection ended, or (id, ask) when a head needs
// JS: ask = { method, target, version, headers: [name, value, ...], retry } or { malformed: true }.
static void call_js(napi_env env, napi_value callback, void *context, void *data) {
  (void)context;
  event *e = data;
  if (env != NULL && callback != NULL) {
    napi_value args[2], global;
    napi_create_double(env, e->id, &args[0]);
    if (e->ended) napi_get_null(env, &args[1]);
    else {
      napi_create_object(env, &args[1]);
      head h;
      napi_value flag;
      napi_get_boolean(env, e->retry != 0, &flag);
      napi_set_named_property(env, args[1], "retry", flag);
      if (!e->head_len || parse_head(e->head, e->head_len, &h, 0) != 0) {
        napi_get_boolean(env, 1, &flag);
        napi_set_named_property(env, args[1], "malformed", flag);
      } else {
        napi_value headers;
        napi_set_named_property(env, args[1], "method", string_of(env, h.first[0]));
        napi_set_named_property(env, args[1], "target", string_of(env, h.first[1]));
        napi_set_named_property(env, args[1], "version", string_of(env, h.first[2]));
        napi_create_array_with_length(env, (size_t)h.count * 2, &headers);
        for (int i = 0; i < h.count; i++) {
          napi_set_element(env, headers, (uint32_t)i * 2, string_of(env, h.names[i]));
          napi_set_element(env, headers, (uint32_t)i * 2 + 1, string_of(env, h.values[i]));
        }
        napi_set_named_property(env, args[1], "headers", headers);
      }
    }
    napi_get_global(env, &global);
    napi_call_function(env, global, callback, 2, args, NULL);
  }
  free(e->head);
  free(e);
}

static napi_value throw_text(napi_env env, const char *text) {
  napi_throw_error(env, NULL, text);
  return NULL;
}


static int dup_nonblocking(int fd) {
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy >= 0 && fcntl(copy, F_SETFL, fcntl(copy, F_GETFL) | O_NONBLOCK) != 0) {
    close(copy);
    copy = -1;
  }
  return copy;
}

// listen(callback): where every connection's events go (once, before the first serve).
static napi_value listen_events(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], name;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1)
    return throw_text(env, "preview-front: listen(callback)");
  if (events_fn) return throw_text(env, "preview-front: listened already");
  pthread_once(&once, start);
  if (started_error) return throw_text(env, "preview-front: its thread did not start");
  napi_create_string_utf8(env, "preview-front", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &events_fn) !=
      napi_ok)
    return throw_text(env, "preview-front: no threadsafe function");
  napi_unref_threadsafe_function(env, events_fn);
  return NULL;
}

// serve(fd): takes over a browser's connection (a duplicate of the descriptor; Node then closes
// its own handle without shutting it down). Returns its id; its first head is asked of JS.
static napi_value serve(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int fd;
  if (!events_fn) return throw_text(env, "preview-front: listen first");
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0 || !stream_socket(fd))
    return throw_text(env, "preview-front: not a stream socket");
  conn *c = calloc(1, sizeof *c);
  if (!c) return throw_text(env, "preview-front: out of memory");
  c->sides[0].owner = c->sides[1].owner = c;
  c->sides[1].fd = -1;
  c->sides[0].fd = dup_nonblocking(fd);
  if (c->sides[0].fd < 0) {
    free(c);
    return throw_text(env, "preview-front: cannot duplicate the connection");
  }
  pthread_mutex_lock(&lock);
  c->id = next_id++;
  c->next = conns;
  conns = c;
  pthread_mutex_unlock(&lock);
  napi_value id;
  napi_create_double(env, c->id, &id);
  wake();
  return id;
}

static conn *asking(double id) {
  for (conn *c = conns; c; c = c->next)
    if (c->id == id && !c->finished && !c->cancel && !c->ready && c->state == ASKING) return c;
  return NULL;
}

static char *string_arg(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_latin1(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text && napi_get_value_string_latin1(env, value, text, length + 1, &length) != napi_ok) {
    free(text);
    return NULL;
  }
  return text;
}

// admit(id, upstreamFd | -1, host, cookie, origin, local, exp): serves the head JS was asked
// about, and from now on those like it, over `upstreamFd` (a duplicate is taken; -1 keeps the one
// it has). False when the connection is gone or not asking.
static napi_value admit(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7], result;
  double id, exp;
  int fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 7 ||
      napi_get_value_double(env, argv[0], &id) != napi_ok || napi_get_value_int32(env, argv[1], &fd) != napi_ok ||
      napi_get_value_double(env, argv[6], &exp) != napi_ok)
    return throw_text(env, "preview-front: admit(id, fd, host, cookie, origin, local, exp)");
  if (fd >= 0 && !stream_socket(fd)) return throw_text(env, "preview-front: not a stream socket");
  char *text[4];
  for (int i = 0; i < 4; i++) text[i] = string_arg(env, argv[2 + i]);
  int copy = fd >= 0 ? dup_nonblocking(fd) : -1;
  int ok = 0;
  pthread_mutex_lock(&lock);
  conn *c = asking(id);
  if (c && text[0] && text[1] && text[2] && text[3] && (fd < 0 ? c->sides[1].fd >= 0 : copy >= 0)) {
    // The thread does not touch an asking connection: its fields are JS's until `ready`.
    if (copy >= 0) {
      if (c->sides[1].fd >= 0) close(c->sides[1].fd);
      c->sides[1].fd = copy;
      c->sides[1].events = 0;
      c->in[1].len = c->out[1].len = 0;
      c->eof[1] = 0;
      copy = -1;
    }
    free(c->host), free(c->cookie), free(c->origin), free(c->local);
    c->host = text[0], c->cookie = text[1], c->origin = text[2], c->local = text[3];
    for (int i = 0; i < 4; i++) text[i] = NULL;
    c->exp = exp;
    c->admitted = 1;
    c->ready = 1;
    ok = 1;
  }
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < 4; i++) free(text[i]);
  if (copy >= 0) close(copy);
  if (ok) wake();
  napi_get_boolean(env, ok, &result);
  return result;
}

// handback(id): the connection leaves the thread for good: { fd, bytes } (the descriptor is the
// caller's to close; `bytes` is what the browser sent that was not used, from the head JS was
// asked about on), or null when it is gone or not asking.
static napi_value handback(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  double id;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_double(env, argv[0], &id) != napi_ok)
    return throw_text(env, "preview-front: handback(id)");
  int fd = -1;
  char *bytes = NULL;
  size_t length = 0;
  pthread_mutex_lock(&lock);
  conn *c = asking(id);
  if (c) {
    c->handed = c->finished = 1;
    for (conn **at = &conns; *at; at = &(*at)->next)
      if (*at == c) {
        *at = c->next;
        break;
      }
    fd = c->sides[0].fd;
    c->sides[0].fd = -1;
    if (c->sides[1].fd >= 0) close(c->sides[1].fd);
    c->sides[1].fd = -1;
    bytes = c->in[0].data;
    length = c->in[0].len;
    c->in[0].data = NULL;
    c->in[0].len = c->in[0].cap = 0;
    c->next_work = graveyard;
    graveyard = c;
  }
  pthread_mutex_unlock(&lock);
  if (!c) {
    napi_get_null(env, &result);
    return result;
  }
  wake();
  napi_value fd_value, data;
  void *copy;
  napi_create_object(env, &result);
  napi_create_int32(env, fd, &fd_value);
  napi_create_buffer_copy(env, length, length ? bytes : "", &copy, &data);
  free(bytes);
  napi_set_named_property(env, result, "fd", fd_value);
  napi_set_named_property(env, result, "bytes", data);
  return result;
}

// end(id): closes the connection (on the thread); its ended event follows. Nothing when gone.
static napi_value end_conn(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  double id = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_double(env, argv[0], &id) != napi_ok)
    return NULL;
  int found = 0;
  pthread_mutex_lock(&lock);
  for (conn *c = conns; c; c = c->next)
    if (c->id == id && !c->finished) {
      c->cancel = 1;
      found = 1;
      break;
    }
  pthread_mutex_unlock(&lock);
  if (found) wake();
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"listen", NULL, listen_events, NULL, NULL, NULL, napi_default, NULL},
      {"serve", NULL, serve, NULL, NULL, NULL, napi_default, NULL},
      {"admit", NULL, admit, NULL, NULL, NULL, napi_default, NULL},
      {"handback", NULL, handback, NULL, NULL, NULL, napi_default, NULL},
      {"end", NULL, end_conn, NULL, NULL, NULL, napi_default, NULL},
  };
  if (napi_define_properties(env, exports, 5, properties) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
