#ifndef INTERPAY_CCURL_SHIM_H
#define INTERPAY_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed shim per argument kind. */

static inline CURLcode interpay_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode interpay_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode interpay_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode interpay_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode interpay_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*interpay_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);

static inline CURLcode interpay_curl_easy_setopt_write_function(CURL *handle, CURLoption option,
                                                                interpay_curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

typedef int (*interpay_curl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                               curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode interpay_curl_easy_setopt_xferinfo_function(CURL *handle, CURLoption option,
                                                                  interpay_curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode interpay_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
