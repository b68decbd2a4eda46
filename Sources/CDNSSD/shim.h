#ifndef INTERPAY_CDNSSD_SHIM_H
#define INTERPAY_CDNSSD_SHIM_H
/* Avahi's Bonjour-compatible DNS-SD API (libdns_sd). */
#include <dns_sd.h>
#endif
