/* The floor for bench/window-start.sh --compare: the least a GTK 4 + libadwaita window can do before it shows
 * (an AdwApplication, a window with a header bar and one label), started and measured the same way as
 * Archiver's windows. Built by the bench: cc window-floor.c $(pkg-config --cflags --libs libadwaita-1). */
#include <adwaita.h>

static void activate(GtkApplication *app, gpointer data) {
	(void)data;
	GtkWidget *window = adw_application_window_new(app);
	gtk_window_set_title(GTK_WINDOW(window), "Floor");
	gtk_window_set_default_size(GTK_WINDOW(window), 520, 420);
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	gtk_box_append(GTK_BOX(box), adw_header_bar_new());
	gtk_box_append(GTK_BOX(box), gtk_label_new("A window"));
	adw_application_window_set_content(ADW_APPLICATION_WINDOW(window), box);
	gtk_window_present(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
	AdwApplication *app = adw_application_new("io.github.archiver.WindowFloor", G_APPLICATION_NON_UNIQUE);
	g_signal_connect(app, "activate", G_CALLBACK(activate), NULL);
	int status = g_application_run(G_APPLICATION(app), argc, argv);
	g_object_unref(app);
	return status;
}
