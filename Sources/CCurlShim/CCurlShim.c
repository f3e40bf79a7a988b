#include "CCurlShim.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

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

void *bc_http_session_new(void) {
    pthread_once(&global_once, global_init);
    return curl_easy_init();
}

void bc_http_session_free(void *session) {
    if (session) curl_easy_cleanup((CURL *)session);
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

void bc_http_perform(void *session, const bc_http_request *request, bc_http_reply *reply) {
    memset(reply, 0, sizeof *reply);
    CURL *curl = session;
    if (!curl) {
        reply->failure = BC_HTTP_OTHER;
        strcpy(reply->message, "libcurl could not be initialised");
        return;
    }
    curl_easy_reset(curl);  // keeps live connections and the DNS cache

    buffer body = {0}, headers = {0};
    body.limit = request->max_body_bytes;
    headers.limit = request->max_header_bytes;
    char error[CURL_ERROR_SIZE] = {0};
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < request->header_count; i++) list = curl_slist_append(list, request->headers[i]);
    // No "Expect: 100-continue" round trip for larger bodies.
    list = curl_slist_append(list, "Expect:");

    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "bikecheck");
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, request->low_speed_seconds);
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_body_bytes);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &headers);
    if (strcmp(request->method, "GET") == 0) {
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    } else if (strcmp(request->method, "POST") == 0) {
        curl_easy_setopt(curl, CURLOPT_POST, 1L);
    } else {
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request->method);
    }
    if (request->body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, (const char *)request->body);
    } else if (strcmp(request->method, "POST") == 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
    }

    CURLcode code = curl_easy_perform(curl);

    long status = 0, os_errno = 0;
    curl_off_t connect_time = 0, pretransfer_time = 0, total_time = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
    curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_time);
    curl_easy_getinfo(curl, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_time);
    curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME_T, &total_time);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
    curl_slist_free_all(list);

    reply->curl_code = (int)code;
    reply->os_errno = (int)os_errno;
    reply->failure = classify(code, &body, &headers, connect_time > 0, (long)(total_time / 1000), request->total_timeout_ms);
    // Once the connection was ready to transfer, the server may have the request.
    reply->request_sent = code == CURLE_OK || (pretransfer_time > 0 && reply->failure != BC_HTTP_UNRESOLVED &&
                                                reply->failure != BC_HTTP_UNREACHABLE);
    if (code != CURLE_OK) {
        const char *text = error[0] ? error : curl_easy_strerror(code);
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
