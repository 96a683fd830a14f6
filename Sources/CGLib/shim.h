#ifndef ARCHIVER_CGLIB_SHIM_H
#define ARCHIVER_CGLIB_SHIM_H
#include <glib.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
/* For g_memory_settings_backend_new: settings tests write to memory, never to the person's dconf. */
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

/* g_signal_connect is a macro over g_signal_connect_data, which Swift cannot see. */
static inline gulong cg_signal_connect(gpointer instance, const gchar *signal, GCallback handler, gpointer data) {
    return g_signal_connect_data(instance, signal, handler, data, NULL, (GConnectFlags)0);
}
#endif
