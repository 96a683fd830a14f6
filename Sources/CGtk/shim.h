#ifndef ARCHIVER_CGTK_SHIM_H
#define ARCHIVER_CGTK_SHIM_H
/* GTK 4 and libadwaita for the windows. Only what Swift cannot import: variadic calls and macros. */
#include <gtk/gtk.h>
#include <adwaita.h>
#include <glib-unix.h>
#include <sys/eventfd.h>

/* libdispatch's main-queue hooks (exported by the toolchain's libdispatch.so; CoreFoundation uses the same
   pair): g_application_run owns the main thread, so the main queue and @MainActor run only when GLib
   drains them (`MainQueueBridge` in UI/WindowApp.swift). */
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *);

/* gtk_accessible_update_property/relation are variadic. */
static inline void cgtk_accessible_set_label(GtkAccessible *a, const char *label) {
    gtk_accessible_update_property(a, GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}
static inline void cgtk_accessible_set_description(GtkAccessible *a, const char *text) {
    gtk_accessible_update_property(a, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}
/* A checked (1), unchecked (0) or mixed (2) state on a widget that is not a check button (a tree's row). */
static inline void cgtk_accessible_set_checked(GtkAccessible *a, int state) {
    gtk_accessible_update_state(a, GTK_ACCESSIBLE_STATE_CHECKED,
                                state == 2 ? GTK_ACCESSIBLE_TRISTATE_MIXED
                                           : state ? GTK_ACCESSIBLE_TRISTATE_TRUE : GTK_ACCESSIBLE_TRISTATE_FALSE, -1);
}
static inline void cgtk_accessible_set_expanded(GtkAccessible *a, gboolean expanded) {
    gtk_accessible_update_state(a, GTK_ACCESSIBLE_STATE_EXPANDED, expanded, -1);
}
static inline void cgtk_accessible_labelled_by(GtkAccessible *a, GtkAccessible *label) {
    gtk_accessible_update_relation(a, GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL, -1);
}

/* g_object_set is variadic: one boolean property (GtkPasswordEntry's activates-default has no setter in 4.8). */
static inline void cgtk_set_boolean_property(gpointer object, const char *name, gboolean value) {
    g_object_set(object, name, value, NULL);
}
/* g_object_set is variadic: one string property (GtkSearchEntry's placeholder-text has no setter in 4.8). */
static inline void cgtk_set_string_property(gpointer object, const char *name, const char *value) {
    g_object_set(object, name, value, NULL);
}

/* G_TYPE_STRING is a macro over a fundamental type number. */
static inline GType cgtk_type_string(void) { return G_TYPE_STRING; }
#endif
