#ifndef ARCHIVER_CNETTLE_SHIM_H
#define ARCHIVER_CNETTLE_SHIM_H
/* WinZip AES for our zip writer: AES-256, HMAC-SHA1 and PBKDF2. nettle's names are macros over the
   nettle_-prefixed functions, which are what Swift sees. */
#include <nettle/aes.h>
#include <nettle/hmac.h>
#include <nettle/memxor.h>
#include <nettle/pbkdf2.h>
#endif
