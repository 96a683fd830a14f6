#ifndef ARCHIVER_CGETTEXT_SHIM_H
#define ARCHIVER_CGETTEXT_SHIM_H
/* glibc's gettext: Swift's Glibc module does not export libintl.h. Nothing to link, it is part of libc. */
#include <libintl.h>
#include <locale.h>
#endif
