#ifndef BIKECHECK_CCURLSHIM_H
#define BIKECHECK_CCURLSHIM_H

// One HTTP request over libcurl's easy API, for Swift (which cannot call the variadic
// curl_easy_setopt). Redirects are never followed, only http and https are allowed, the body
// and headers are bounded, and the transfer has a total and a low-speed time limit.

#include <stddef.h>
#include <stdint.h>

typedef struct bc_http_request {
    const char *method;                 // "GET", "POST", …
    const char *url;
    const char *const *headers;         // "Name: value" lines
    size_t header_count;
    const uint8_t *body;                // NULL for no body
    size_t body_length;
    long total_timeout_ms;              // the whole request, connection included
    long connect_timeout_ms;
    long low_speed_seconds;             // seconds below 1 byte/s that end the transfer
    size_t max_body_bytes;              // decoded bytes; more ends the transfer
    size_t max_header_bytes;
} bc_http_request;

/// Why a request failed; BC_HTTP_OK when a reply (of any status) arrived whole.
typedef enum bc_http_failure {
    BC_HTTP_OK = 0,
    BC_HTTP_UNRESOLVED,        // the host name could not be resolved (no network, no DNS)
    BC_HTTP_UNREACHABLE,       // no connection (refused, no route, connect timed out)
    BC_HTTP_TIMED_OUT,         // the total time bound was reached
    BC_HTTP_STALLED,           // the low-speed bound was reached
    BC_HTTP_BODY_TOO_LARGE,
    BC_HTTP_HEADERS_TOO_LARGE,
    BC_HTTP_CONNECTION_LOST,   // sent, then the connection broke or the reply was cut
    BC_HTTP_BAD_ENCODING,      // the content encoding could not be decoded
    BC_HTTP_TLS,
    BC_HTTP_BAD_URL,           // malformed, or a protocol other than http and https
    BC_HTTP_OTHER,
    BC_HTTP_NO_LIBRARY         // libcurl could not be loaded (the message says why)
} bc_http_failure;

typedef struct bc_http_reply {
    long status;
    int failure;                // a bc_http_failure
    int request_sent;           // 1 when the request may have reached the server
    int os_errno;
    int curl_code;
    char message[256];          // libcurl's own words on failure
    uint8_t *headers;           // the final response's header lines, as received
    size_t headers_length;
    uint8_t *body;              // decoded body
    size_t body_length;
} bc_http_reply;

/// A session keeps connections (and the DNS cache) between requests; one thread at a time.
/// It loads libcurl (`library`, or NULL for the system's libcurl.so.4) with dlopen; when that
/// fails, every request fails with BC_HTTP_NO_LIBRARY.
void *bc_http_session_new(const char *library);
void bc_http_session_free(void *session);
/// Performs one request; always fills `reply` (free it with bc_http_reply_free).
void bc_http_perform(void *session, const bc_http_request *request, bc_http_reply *reply);
void bc_http_reply_free(bc_http_reply *reply);

/// One mail over SMTP: TLS is required (STARTTLS on smtp://, at once on smtps://) and the
/// server's certificate is always verified, against `ca_file` when given. Fills `reply` like
/// bc_http_perform (status is the server's last reply code; no body).
typedef struct bc_smtp_request {
    const char *url;                    // smtp://host:port or smtps://host:port
    const char *mail_from;              // the envelope sender, an address without brackets
    const char *const *recipients;      // envelope recipients
    size_t recipient_count;
    const uint8_t *message;             // the whole RFC 5322 message, CRLF line ends
    size_t message_length;
    const char *username;               // NULL: no login
    const char *password;
    const char *ca_file;                // NULL: the system's certificate store
    long total_timeout_ms;
    long connect_timeout_ms;
} bc_smtp_request;

void bc_smtp_send(void *session, const bc_smtp_request *request, bc_http_reply *reply);

#endif
