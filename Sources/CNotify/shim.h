#ifndef ARCHIVER_CNOTIFY_SHIM_H
#define ARCHIVER_CNOTIFY_SHIM_H
#include <libnotify/notify.h>
#endif
