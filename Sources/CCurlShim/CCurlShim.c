#include "CCurlShim.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libcurl is loaded with dlopen on a session's first use, not linked: bikecheck's commands that
// never talk to Strava then start without libcurl and the ~30 libraries it pulls in (its
// headers are still used at build time, for the option numbers and types).
#ifdef __APPLE__
#define BC_DEFAULT_LIBCURL "libcurl.4.dylib"
#else
#define BC_DEFAULT_LIBCURL "libcurl.so.4"
#endif

// The libcurl functions the shim uses, looked up by name.
typedef struct bc_curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} bc_curl_api;

typedef struct bc_session {
    bc_curl_api api;
    void *library;          // the dlopen handle, NULL when libcurl could not be loaded
    CURL *curl;
    char load_error[200];   // why it could not be loaded
} bc_session;

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static int global_done = 0;

// Loads `name` into the session's table; 0 and a message in load_error when it cannot.
static int load_library(bc_session *s, const char *name) {
    s->library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!s->library) {
        const char *why = dlerror();
        snprintf(s->load_error, sizeof s->load_error, "%s", why ? why : name);
        return 0;
    }
    struct { const char *symbol; void **slot; } table[] = {
        {"curl_global_init", (void **)&s->api.global_init},
        {"curl_easy_init", (void **)&s->api.easy_init},
        {"curl_easy_cleanup", (void **)&s->api.easy_cleanup},
        {"curl_easy_reset", (void **)&s->api.easy_reset},
        {"curl_easy_setopt", (void **)&s->api.easy_setopt},
        {"curl_easy_perform", (void **)&s->api.easy_perform},
        {"curl_easy_getinfo", (void **)&s->api.easy_getinfo},
        {"curl_easy_strerror", (void **)&s->api.easy_strerror},
        {"curl_slist_append", (void **)&s->api.slist_append},
        {"curl_slist_free_all", (void **)&s->api.slist_free_all},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        *table[i].slot = dlsym(s->library, table[i].symbol);
        if (!*table[i].slot) {
            snprintf(s->load_error, sizeof s->load_error, "%s has no function %s", name, table[i].symbol);
            dlclose(s->library);
            s->library = NULL;
            return 0;
        }
    }
    return 1;
}

typedef struct buffer {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
    size_t limit;
    int over;
} buffer;

// Appends, or marks the buffer over its limit and appends nothing.
static int buffer_append(buffer *b, const char *data, size_t n) {
    if (n > b->limit - b->length) { b->over = 1; return 0; }
    if (b->length + n > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 16384;
        while (capacity < b->length + n) capacity *= 2;
        if (capacity > b->limit) capacity = b->limit;
        uint8_t *grown = realloc(b->bytes, capacity);
        if (!grown) { b->over = 1; return 0; }
        b->bytes = grown;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, data, n);
    b->length += n;
    return 1;
}

// Decoded body bytes: returning less than given ends the transfer (CURLE_WRITE_ERROR).
static size_t on_body(char *data, size_t size, size_t count, void *context) {
    return buffer_append((buffer *)context, data, size * count) ? size * count : 0;
}

// One header line at a time; a new status line (after a 1xx) starts the final response over.
static size_t on_header(char *data, size_t size, size_t count, void *context) {
    buffer *b = context;
    size_t n = size * count;
    if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) b->length = 0;
    return buffer_append(b, data, n) ? n : 0;
}

void *bc_http_session_new(const char *library) {
    bc_session *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (!load_library(s, library ? library : BC_DEFAULT_LIBCURL)) return s;
    pthread_mutex_lock(&global_lock);
    if (!global_done) {
        s->api.global_init(CURL_GLOBAL_DEFAULT);
        global_done = 1;
    }
    pthread_mutex_unlock(&global_lock);
    s->curl = s->api.easy_init();
    return s;
}

void bc_http_session_free(void *session) {
    bc_session *s = session;
    if (!s) return;
    if (s->curl) s->api.easy_cleanup(s->curl);
    // The library stays loaded: libcurl's global state must not be unloaded under it.
    free(s);
}

void bc_http_reply_free(bc_http_reply *reply) {
    free(reply->headers);
    free(reply->body);
    reply->headers = NULL;
    reply->body = NULL;
}

static int classify(CURLcode code, const buffer *body, const buffer *headers, int connected, long elapsed_ms,
                    long total_timeout_ms) {
    switch (code) {
    case CURLE_OK: return BC_HTTP_OK;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return BC_HTTP_UNRESOLVED;
    case CURLE_COULDNT_CONNECT: return BC_HTTP_UNREACHABLE;
    case CURLE_OPERATION_TIMEDOUT:
        if (!connected) return BC_HTTP_UNREACHABLE;
        // The same code for both bounds: the total one is reached only at its end.
        return elapsed_ms + 100 >= total_timeout_ms ? BC_HTTP_TIMED_OUT : BC_HTTP_STALLED;
    case CURLE_FILESIZE_EXCEEDED: return BC_HTTP_BODY_TOO_LARGE;
    case CURLE_WRITE_ERROR:
        if (body->over) return BC_HTTP_BODY_TOO_LARGE;
        if (headers->over) return BC_HTTP_HEADERS_TOO_LARGE;
        return BC_HTTP_OTHER;
    case CURLE_BAD_CONTENT_ENCODING: return BC_HTTP_BAD_ENCODING;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT: return BC_HTTP_BAD_URL;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR: return BC_HTTP_TLS;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return BC_HTTP_CONNECTION_LOST;
    default:
        if (headers->over) return BC_HTTP_HEADERS_TOO_LARGE;
        return BC_HTTP_OTHER;
    }
}

/// Clears `reply` and returns the session's handle; NULL, with the reply saying why, when libcurl
/// could not be loaded or initialised.
static CURL *bc_session_curl(bc_session *s, bc_http_reply *reply) {
    memset(reply, 0, sizeof *reply);
    if (!s || !s->library) {
        reply->failure = BC_HTTP_NO_LIBRARY;
        snprintf(reply->message, sizeof reply->message, "%s", s ? s->load_error : "out of memory");
        return NULL;
    }
    if (!s->curl) {
        reply->failure = BC_HTTP_OTHER;
        strcpy(reply->message, "libcurl could not be initialised");
        return NULL;
    }
    return s->curl;
}

void bc_http_perform(void *session, const bc_http_request *request, bc_http_reply *reply) {
    bc_session *s = session;
    CURL *curl = bc_session_curl(s, reply);
    if (!curl) return;
    const bc_curl_api *api = &s->api;
    api->easy_reset(curl);  // keeps live connections and the DNS cache

    buffer body = {0}, headers = {0};
    body.limit = request->max_body_bytes;
    headers.limit = request->max_header_bytes;
    char error[CURL_ERROR_SIZE] = {0};
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < request->header_count; i++) list = api->slist_append(list, request->headers[i]);
    // No "Expect: 100-continue" round trip for larger bodies.
    list = api->slist_append(list, "Expect:");

    api->easy_setopt(curl, CURLOPT_URL, request->url);
    api->easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    api->easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    api->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    api->easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    api->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    api->easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    api->easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode
    api->easy_setopt(curl, CURLOPT_USERAGENT, "bikecheck");
    api->easy_setopt(curl, CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    api->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    api->easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    api->easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, request->low_speed_seconds);
    api->easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_body_bytes);
    api->easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    api->easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    api->easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    api->easy_setopt(curl, CURLOPT_HEADERDATA, &headers);
    if (strcmp(request->method, "GET") == 0) {
        api->easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    } else if (strcmp(request->method, "POST") == 0) {
        api->easy_setopt(curl, CURLOPT_POST, 1L);
    } else {
        api->easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request->method);
    }
    if (request->body) {
        api->easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
        api->easy_setopt(curl, CURLOPT_POSTFIELDS, (const char *)request->body);
    } else if (strcmp(request->method, "POST") == 0) {
        api->easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
        api->easy_setopt(curl, CURLOPT_POSTFIELDS, "");
    }

    CURLcode code = api->easy_perform(curl);

    long status = 0, os_errno = 0;
    curl_off_t connect_time = 0, pretransfer_time = 0, total_time = 0;
    api->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    api->easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
    api->easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_time);
    api->easy_getinfo(curl, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_time);
    api->easy_getinfo(curl, CURLINFO_TOTAL_TIME_T, &total_time);
    api->easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    api->easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
    api->slist_free_all(list);

    reply->curl_code = (int)code;
    reply->os_errno = (int)os_errno;
    reply->failure = classify(code, &body, &headers, connect_time > 0, (long)(total_time / 1000), request->total_timeout_ms);
    // Once the connection was ready to transfer, the server may have the request.
    reply->request_sent = code == CURLE_OK || (pretransfer_time > 0 && reply->failure != BC_HTTP_UNRESOLVED &&
                                                reply->failure != BC_HTTP_UNREACHABLE);
    if (code != CURLE_OK) {
        const char *text = error[0] ? error : api->easy_strerror(code);
        strncpy(reply->message, text, sizeof reply->message - 1);
        free(body.bytes);
        free(headers.bytes);
        return;
    }
    reply->status = status;
    reply->headers = headers.bytes;
    reply->headers_length = headers.length;
    reply->body = body.bytes;
    reply->body_length = body.length;
}

// The message, handed to libcurl in pieces as it asks.
typedef struct upload {
    const uint8_t *bytes;
    size_t length;
    size_t sent;
} upload;

static size_t on_read(char *out, size_t size, size_t count, void *context) {
    upload *u = context;
    size_t room = size * count, left = u->length - u->sent;
    size_t n = left < room ? left : room;
    memcpy(out, u->bytes + u->sent, n);
    u->sent += n;
    return n;
}

void bc_smtp_send(void *session, const bc_smtp_request *request, bc_http_reply *reply) {
    bc_session *s = session;
    CURL *curl = bc_session_curl(s, reply);
    if (!curl) return;
    const bc_curl_api *api = &s->api;
    api->easy_reset(curl);

    char error[CURL_ERROR_SIZE] = {0};
    struct curl_slist *recipients = NULL;
    for (size_t i = 0; i < request->recipient_count; i++) recipients = api->slist_append(recipients, request->recipients[i]);
    upload body = {request->message, request->message_length, 0};
    buffer none = {0};

    api->easy_setopt(curl, CURLOPT_URL, request->url);
    api->easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    api->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    api->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    // TLS or nothing: a password or a reminder never crosses the network in the clear.
    api->easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
    api->easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    api->easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    if (request->ca_file) api->easy_setopt(curl, CURLOPT_CAINFO, request->ca_file);
    if (request->username) api->easy_setopt(curl, CURLOPT_USERNAME, request->username);
    if (request->password) api->easy_setopt(curl, CURLOPT_PASSWORD, request->password);
    api->easy_setopt(curl, CURLOPT_MAIL_FROM, request->mail_from);
    api->easy_setopt(curl, CURLOPT_MAIL_RCPT, recipients);
    api->easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    api->easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
    api->easy_setopt(curl, CURLOPT_READDATA, &body);
    api->easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)request->message_length);
    api->easy_setopt(curl, CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    api->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);

    CURLcode code = api->easy_perform(curl);

    long status = 0, os_errno = 0;
    curl_off_t connect_time = 0, total_time = 0;
    api->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    api->easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
    api->easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_time);
    api->easy_getinfo(curl, CURLINFO_TOTAL_TIME_T, &total_time);
    api->easy_setopt(curl, CURLOPT_MAIL_RCPT, NULL);
    api->easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
    api->slist_free_all(recipients);

    reply->curl_code = (int)code;
    reply->os_errno = (int)os_errno;
    reply->status = status;
    if (code == CURLE_USE_SSL_FAILED) {
        reply->failure = BC_HTTP_TLS;
    } else {
        reply->failure = classify(code, &none, &none, connect_time > 0, (long)(total_time / 1000), request->total_timeout_ms);
    }
    reply->request_sent = code == CURLE_OK || body.sent > 0;
    if (code != CURLE_OK) {
        const char *text = error[0] ? error : api->easy_strerror(code);
        strncpy(reply->message, text, sizeof reply->message - 1);
    }
}
