#!/usr/bin/python3
"""A GTK 4 window holding one of each control the Archiver windows use, for the harness's own tests.
Every change is printed on stdout ("clicked Compress", "name=Holiday", …) and shown in the last label; one switch is left
unlabelled on purpose, for the check that every control has a name."""

import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, Gtk  # noqa: E402


def build(app):
    window = Gtk.ApplicationWindow(application=app, title="Harness sample")
    window.set_default_size(480, 420)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, margin_top=12, margin_bottom=12,
                  margin_start=12, margin_end=12)
    window.set_child(box)
    status = Gtk.Label(label="ready")  # a label's name is its text: tests find it by what it says

    def report(text):
        status.set_label(text)
        print(text, flush=True)

    # An entry labelled by a mnemonic label (the LABELLED_BY relation names it "Name").
    name_label = Gtk.Label(label="_Name", use_underline=True, xalign=0)
    name = Gtk.Entry()
    name_label.set_mnemonic_widget(name)
    name.connect("changed", lambda e: report(f"name={e.get_text()}"))
    box.append(name_label)
    box.append(name)

    password = Gtk.PasswordEntry(show_peek_icon=True)
    password.update_property([Gtk.AccessibleProperty.LABEL], ["Password"])
    password.connect("changed", lambda e: report(f"password={len(e.get_text())} characters"))
    box.append(password)

    encrypt = Gtk.CheckButton(label="Encrypt")
    encrypt.connect("toggled", lambda b: report(f"encrypt={b.get_active()}"))
    box.append(encrypt)

    row = Gtk.Box(spacing=6)
    switch_label = Gtk.Label(label="Delete after compressing")
    switch = Gtk.Switch()
    switch.update_property([Gtk.AccessibleProperty.LABEL], ["Delete after compressing"])
    switch.connect("notify::active", lambda s, _: report(f"delete={s.get_active()}"))
    # Deliberately unlabelled, as AdwExpanderRow's switch is on libadwaita 1.2: AT-SPI names it "GtkSwitch".
    unnamed = Gtk.Switch()
    row.append(switch_label)
    row.append(switch)
    row.append(unnamed)
    box.append(row)

    formats = Gtk.DropDown.new_from_strings(["zip", "7z", "tar.xz"])
    formats.update_property([Gtk.AccessibleProperty.LABEL], ["Format"])
    formats.connect("notify::selected", lambda d, _: report(f"format={d.get_selected_item().get_string()}"))
    box.append(formats)

    level = Gtk.SpinButton.new_with_range(0, 9, 1)
    level.update_property([Gtk.AccessibleProperty.LABEL], ["Level"])
    box.append(level)

    files = Gtk.ListBox()
    files.update_property([Gtk.AccessibleProperty.LABEL], ["Files"])
    for file_name in ["report.pdf", "photo.jpg"]:
        files.append(Gtk.Label(label=file_name, xalign=0))
    files.connect("row-activated", lambda _, r: report(f"row={r.get_child().get_label()}"))
    box.append(files)

    buttons = Gtk.Box(spacing=6)
    cancel = Gtk.Button(label="Cancel")
    cancel.connect("clicked", lambda _: (report("clicked Cancel"), app.quit()))
    compress = Gtk.Button(label="_Compress", use_underline=True)
    compress.connect("clicked", lambda _: report("clicked Compress"))
    buttons.append(cancel)
    buttons.append(compress)
    box.append(buttons)
    box.append(status)
    window.present()


app = Gtk.Application(application_id="io.github.archiver.HarnessSample", flags=Gio.ApplicationFlags.NON_UNIQUE)
app.connect("activate", build)
sys.exit(app.run([sys.argv[0]]))
