#ifndef INTERPAY_CCURL_SHIM_H
#define INTERPAY_CCURL_SHIM_H
#include <curl/curl.h>

/* libcurl is not linked: InterPayRates loads it with dlopen at the first transfer (LibCurl.swift says why), so every
 * call goes through a function pointer. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift can call
 * neither directly nor through a pointer: one typed shim per argument kind, given the pointer dlsym returned. */

typedef CURLcode (*interpay_curl_setopt_function)(CURL *handle, CURLoption option, ...);
typedef CURLcode (*interpay_curl_getinfo_function)(CURL *handle, CURLINFO info, ...);

static inline CURLcode interpay_curl_easy_setopt_long(void *setopt, CURL *handle, CURLoption option, long value) {
    return ((interpay_curl_setopt_function)setopt)(handle, option, value);
}

static inline CURLcode interpay_curl_easy_setopt_string(void *setopt, CURL *handle, CURLoption option,
                                                        const char *value) {
    return ((interpay_curl_setopt_function)setopt)(handle, option, value);
}

static inline CURLcode interpay_curl_easy_setopt_pointer(void *setopt, CURL *handle, CURLoption option,
                                                         void *value) {
    return ((interpay_curl_setopt_function)setopt)(handle, option, value);
}

static inline CURLcode interpay_curl_easy_setopt_off_t(void *setopt, CURL *handle, CURLoption option,
                                                       curl_off_t value) {
    return ((interpay_curl_setopt_function)setopt)(handle, option, value);
}

static inline CURLcode interpay_curl_easy_setopt_slist(void *setopt, CURL *handle, CURLoption option,
                                                       struct curl_slist *value) {
    return ((interpay_curl_setopt_function)setopt)(handle, option, value);
}

typedef size_t (*interpay_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);

static inline CURLcode interpay_curl_easy_setopt_write_function(void *setopt, CURL *handle, CURLoption option,
                                                                interpay_curl_write_callback value) {
    return ((interpay_curl_setopt_function)setopt)(handle, option, value);
}

typedef int (*interpay_curl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                               curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode interpay_curl_easy_setopt_xferinfo_function(void *setopt, CURL *handle, CURLoption option,
                                                                  interpay_curl_xferinfo_callback value) {
    return ((interpay_curl_setopt_function)setopt)(handle, option, value);
}

static inline CURLcode interpay_curl_easy_getinfo_long(void *getinfo, CURL *handle, CURLINFO info, long *value) {
    return ((interpay_curl_getinfo_function)getinfo)(handle, info, value);
}

#endif
