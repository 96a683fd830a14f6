#!/usr/bin/python3
"""Drives a running application over AT-SPI, for the window tests (Tests/ArchiverTestSupport/WindowSession.swift).

Run it with Debian's /usr/bin/python3 (python3-pyatspi brings gi's Atspi typelib; a pyenv python lacks it), with
DISPLAY and DBUS_SESSION_BUS_ADDRESS of the session whose windows it drives.

    driver.py serve                 one JSON command per line on stdin, one JSON reply per line on stdout
    driver.py run '[{"cmd": …}, …]'  the commands in order; stops at the first failure; exit 1 when one failed
    driver.py tree [APP]            the accessible tree as text

A command is an object {"cmd": NAME, …}; the reply is {"ok": true, …} or {"ok": false, "error": "…", "tree": "…"}.
Commands (NAME is an accessible name; a widget matches when its name is NAME, is NAME once mnemonic underscores
go, or ends with " NAME" — GTK 4.8 names a labelled mnemonic button "C_ompress Compress"):
    wait-app app timeout            an application of that name is on the bus and has a window
    wait name [role] [timeout]      a showing widget of that name exists       -> {"role"}
    gone name [role] [timeout]      no showing widget of that name remains
    tree [app]                      -> {"tree": text, "nodes": [{role, name, states, text, value, depth}]}
    click name [role]               a button (or anything with an action; else a mouse click in its middle)
    set-text name text              EditableText of the entry of that name (or labelled by it)
    type text                       key presses of text into the focused widget (XTest, via the registry)
    keys keys                       ["Tab", "ctrl+a", "Return", …]
    focus name [role]               grab the keyboard focus
    toggle name [on]                check box / switch / toggle button; with on: only when it differs
    select name item                combo box, drop-down or combo row: open it and pick the item of that name
    activate-row name               a list/tree row (list item, table cell, tree item) by its name or a label in it
    …"first": true takes the first of several matches (libadwaita's message dialog holds each response twice)
    …any widget can be named by "beside": LABEL instead (the widget right of that label, for unlabelled fields)
    text name [role]                the text of a label / entry (Text interface, else its name)
    wait-text text [exact]          a shown label says text, or one of a list of texts (holds it; with exact:
                                    is it) -> {"text"}
    title                           the title of the application's showing window -> {"title"}
    labels                          -> {"labels": [the text of every shown label]}
    states name [role]              -> {"states": […]}
    value name [role]               -> {"value": number}
    set-value name value            a spin button's or slider's value (Value interface)
    names                           every interactive control has a role and a non-empty name -> {"unnamed": […]}
    focused                         the widget with the keyboard focus -> {"role", "name", "states", "description"}
    tab-walk [keys] [limit]         presses Tab (or keys, e.g. ["ISO_Left_Tab"]) until the focus comes back to
                                    where it was, at most limit times -> {"stops": [the focused widget after
                                    each press]}
Every command takes "app" to look only in that application (the session sets it after wait-app), and "timeout"
(default 10 s): a command retries until the widget it needs appears.
"""

import json
import re
import sys
import time

import warnings

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

# get_text_iface() and friends are deprecated in favour of calling Atspi.Text.… on the accessible; both work on
# Debian 12's libatspi 2.46, and the old names read better.
warnings.simplefilter("ignore", DeprecationWarning)

INTERACTIVE = {
    "push button", "toggle button", "check box", "radio button", "text", "password text", "entry", "combo box",
    "spin button", "list item", "menu item", "check menu item", "radio menu item", "switch", "slider", "link",
    "page tab", "tree item",
}
ROWS = {"list item", "table cell", "tree item", "table row", "tree table cell", "row"}
TOGGLES = {"check box", "toggle button", "switch", "radio button", "check menu item", "radio menu item"}
WINDOWS = {"frame", "dialog", "window", "alert", "file chooser"}
EDITABLE = {"text", "password text", "entry", "spin button", "editbar"}
DEFAULT_TIMEOUT = 10.0
POLL = 0.03

# Keysyms for keys() (X11 keysymdef.h); single characters are their code point.
KEYSYMS = {
    "Tab": 0xFF09, "Return": 0xFF0D, "Enter": 0xFF0D, "Escape": 0xFF1B, "BackSpace": 0xFF08, "Delete": 0xFFFF,
    "Home": 0xFF50, "Left": 0xFF51, "Up": 0xFF52, "Right": 0xFF53, "Down": 0xFF54, "Page_Up": 0xFF55,
    "Page_Down": 0xFF56, "End": 0xFF57, "space": 0x20, "ISO_Left_Tab": 0xFE20, "Menu": 0xFF67,
    **{f"F{n}": 0xFFBE + n - 1 for n in range(1, 13)},
}
MODIFIERS = {"shift": 1 << 0, "ctrl": 1 << 2, "control": 1 << 2, "alt": 1 << 3, "super": 1 << 6}


class Failure(Exception):
    """A command that cannot be done; the reply carries the message and the tree."""


def pump():
    """Handle the bus messages that arrived, so libatspi's view is current."""
    context = GLib.MainContext.default()
    while context.pending():
        context.iteration(False)


def desktop_apps():
    pump()
    desktop = Atspi.get_desktop(0)
    apps = []
    for i in range(desktop.get_child_count()):
        try:
            app = desktop.get_child_at_index(i)
            if app is None:
                continue
            apps.append(app)
        except GLib.Error:
            continue
    return apps


def safe(call, default=None):
    try:
        return call()
    except (GLib.Error, AttributeError, TypeError, RuntimeError):
        return default


def role_of(acc):
    return safe(acc.get_role_name, "?") or "?"


def name_of(acc):
    return safe(acc.get_name, "") or ""


def states_of(acc):
    state_set = safe(acc.get_state_set)
    if state_set is None:
        return []
    return sorted(Atspi.StateType(s).value_nick for s in safe(state_set.get_states, []))


def shown(acc):
    """On screen, as far as AT-SPI tells: GTK 3 sets SHOWING on mapped widgets; GTK 4.8 sets it only on the
    window, and VISIBLE on the widgets."""
    states = states_of(acc)
    return "showing" in states or "visible" in states


def text_of(acc):
    text = safe(acc.get_text_iface)
    if text is None:
        return None
    count = safe(text.get_character_count, 0)
    return safe(lambda: text.get_text(0, count), None)


def value_of(acc):
    value = safe(acc.get_value_iface)
    return None if value is None else safe(value.get_current_value)


def children(acc):
    count = safe(acc.get_child_count, 0) or 0
    for i in range(min(count, 2000)):
        child = safe(lambda: acc.get_child_at_index(i))
        if child is not None:
            yield child


def walk(acc, depth=0, limit=60):
    yield acc, depth
    if depth < limit:
        for child in children(acc):
            yield from walk(child, depth + 1, limit)


def roots(app_name):
    apps = desktop_apps()
    if app_name:
        apps = [a for a in apps if name_of(a) == app_name]
    return apps


def matches(name, wanted):
    if not name:
        return False
    return name == wanted or name.replace("_", "") == wanted or name.endswith(" " + wanted)


def describe(acc, depth):
    parts = ["  " * depth + f"[{role_of(acc)}]", json.dumps(name_of(acc), ensure_ascii=False)]
    states = [s for s in states_of(acc) if s in {
        "focused", "checked", "pressed", "indeterminate", "selected", "expanded", "editable"}]
    flags = states_of(acc)
    if "sensitive" not in flags and role_of(acc) != "application":
        states.append("insensitive")
    if role_of(acc) != "application" and "showing" not in flags and "visible" not in flags:
        states.append("hidden")
    if states:
        parts.append("{" + ",".join(states) + "}")
    text = text_of(acc)
    if text and text != name_of(acc):
        parts.append("text=" + json.dumps(text, ensure_ascii=False))
    value = value_of(acc)
    if value is not None:
        parts.append(f"value={value:g}")
    return " ".join(parts)


def tree_text(app_name):
    lines = []
    for app in roots(app_name):
        for acc, depth in walk(app):
            lines.append(describe(acc, depth))
    return "\n".join(lines) if lines else f"(no application{' named ' + app_name if app_name else ''} on the bus)"


def tree_nodes(app_name):
    nodes = []
    for app in roots(app_name):
        for acc, depth in walk(app):
            nodes.append({
                "role": role_of(acc), "name": name_of(acc), "states": states_of(acc), "text": text_of(acc),
                "value": value_of(acc), "depth": depth,
            })
    return nodes


def labelled_by(acc):
    """The names of the labels that label acc (GTK's LABELLED_BY relation)."""
    names = []
    for relation in safe(acc.get_relation_set, []) or []:
        if relation.get_relation_type() == Atspi.RelationType.LABELLED_BY:
            for i in range(relation.get_n_targets()):
                names.append(name_of(relation.get_target(i)))
    return names


def find_all(app_name, name, roles=None, predicate=None, via_labels=False):
    found = []
    for app in roots(app_name):
        for acc, _ in walk(app):
            role = role_of(acc)
            if roles and role not in roles:
                continue
            if predicate and not predicate(acc):
                continue
            if matches(name_of(acc), name) or (via_labels and any(matches(n, name) for n in labelled_by(acc))):
                found.append(acc)
    return found


def extents(acc):
    component = safe(acc.get_component_iface)
    return None if component is None else safe(lambda: component.get_extents(Atspi.CoordType.WINDOW))


def find_beside(app_name, label, roles=None, predicate=None):
    """The widgets on the same line as, and right of, a showing label of that text: for other people's windows
    whose fields are not labelled for assistive technology (zenity --forms). Our own windows must not need it."""
    found = []
    labels = [a for a in find_all(app_name, label, {"label"}) if shown(a)]
    for app in roots(app_name):
        for acc, _ in walk(app):
            if (roles and role_of(acc) not in roles) or (predicate and not predicate(acc)):
                continue
            box = extents(acc)
            for label_acc in labels:
                other = extents(label_acc)
                if box and other and box.x >= other.x + other.width \
                        and abs((box.y + box.height / 2) - (other.y + other.height / 2)) < max(box.height, 8) / 2:
                    found.append(acc)
    return found


def inside(acc, ancestor):
    parent = safe(acc.get_parent)
    for _ in range(60):
        if parent is None:
            return False
        if parent == ancestor:
            return True
        parent = safe(parent.get_parent)
    return False


def not_label(acc):
    return role_of(acc) != "label"


def find_one(command, roles=None, predicate=None, via_labels=False, what="widget", prefer=not_label):
    """The one showing widget that fits, waiting for it up to the command's timeout. The command names it by
    "name" (its accessible name, or with via_labels the label it is labelled by) or by "beside" (see find_beside)."""
    name = command.get("name") or command.get("beside")
    if not name:
        raise Failure("the command names no widget: give \"name\" (or \"beside\")")
    if command.get("role"):
        roles = {command["role"]}
    deadline = time.monotonic() + float(command.get("timeout", DEFAULT_TIMEOUT))
    while True:
        if "name" in command:
            found = find_all(command.get("app"), name, roles, predicate, via_labels)
        else:
            found = find_beside(command.get("app"), name, roles, predicate)
        showing = [a for a in found if shown(a)]
        # A button's own label has the button's name: keep the outermost.
        showing = [a for a in showing if not any(inside(a, other) for other in showing if other is not a)]
        # An entry and the label that names it: the entry (the label is there to be read, not used).
        if len(showing) > 1 and prefer is not None:
            showing = [a for a in showing if prefer(a)] or showing
        if len(showing) > 1 and command.get("first"):
            # Of a widget held twice for two layouts, the one laid out now has a size.
            sized = [a for a in showing if (lambda box: box is not None and box.width > 0 and box.height > 0)(extents(a))]
            return (sized or showing)[0]
        if len(showing) == 1:
            return showing[0]
        if len(showing) > 1:
            listed = "; ".join(f"[{role_of(a)}] {name_of(a)!r}" for a in showing[:8])
            raise Failure(f"{len(showing)} showing {what}s named {name!r} ({listed}); pass a role to choose")
        if time.monotonic() > deadline:
            hidden = f" ({len(found)} not showing)" if found else ""
            role_text = f" with role in {sorted(roles)}" if roles else ""
            raise Failure(f"no showing {what} named {name!r}{role_text}{hidden} after {command.get('timeout', DEFAULT_TIMEOUT)} s")
        time.sleep(POLL)


def wait_until(condition, timeout, message):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise Failure(message)
        time.sleep(POLL)


def action_names(acc):
    action = safe(acc.get_action_iface)
    if action is None:
        return action, []
    return action, [safe(lambda: action.get_action_name(i), "") for i in range(safe(action.get_n_actions, 0) or 0)]


def do_action(acc, preferred=("click", "press", "activate", "toggle", "switch")):
    """The widget's default action; a mouse click in its middle when it has none (GTK 4.8's check buttons)."""
    action, names = action_names(acc)
    for wanted in preferred:
        if wanted in names:
            action.do_action(names.index(wanted))
            return wanted
    if names:
        action.do_action(0)
        return names[0]
    mouse_click(acc)
    return "mouse"


def mouse_click(acc, kind="b1c"):
    component = safe(acc.get_component_iface)
    if component is None:
        raise Failure(f"[{role_of(acc)}] {name_of(acc)!r} has neither an action nor a position to click")
    # GTK 4 has no global coordinates (and warns when asked for them): take them inside the window, which is at
    # the origin when no window manager runs (as under the session's Xvfb).
    gtk4 = (safe(lambda: acc.get_application().get_toolkit_version(), "") or "").startswith("4.")
    box = component.get_extents(Atspi.CoordType.WINDOW if gtk4 else Atspi.CoordType.SCREEN)
    x, y = box.x + box.width // 2, box.y + box.height // 2
    Atspi.generate_mouse_event(x, y, kind)


def toplevel_of(acc):
    while True:
        parent = safe(acc.get_parent)
        if parent is None or role_of(parent) == "application":
            return acc
        acc = parent


def press(keys):
    for key in keys:
        parts = key.split("+")
        mask = 0
        for modifier in parts[:-1]:
            if modifier.lower() not in MODIFIERS:
                raise Failure(f"unknown modifier {modifier!r} in {key!r} (known: {sorted(MODIFIERS)})")
            mask |= MODIFIERS[modifier.lower()]
        last = parts[-1]
        keysym = KEYSYMS.get(last, ord(last) if len(last) == 1 else None)
        if keysym is None:
            raise Failure(f"unknown key {last!r} (known: single characters and {sorted(KEYSYMS)})")
        if mask:
            Atspi.generate_keyboard_event(mask, None, Atspi.KeySynthType.LOCKMODIFIERS)
        try:
            Atspi.generate_keyboard_event(keysym, None, Atspi.KeySynthType.SYM)
        finally:
            if mask:
                Atspi.generate_keyboard_event(mask, None, Atspi.KeySynthType.UNLOCKMODIFIERS)


# Commands ---------------------------------------------------------------------------------------------------

def cmd_wait_app(c):
    app_name = c["app"]
    timeout = float(c.get("timeout", DEFAULT_TIMEOUT))
    start = time.monotonic()

    def has_window():
        for app in roots(app_name):
            for child in children(app):
                if role_of(child) in WINDOWS and shown(child):
                    return True
        return False

    names = lambda: sorted({name_of(a) for a in desktop_apps()})  # noqa: E731
    wait_until(has_window, timeout, f"no application {app_name!r} with a showing window after {timeout} s "
               f"(applications on the bus: {names()})")
    return {"seconds": time.monotonic() - start}


def cmd_wait(c):
    acc = find_one(c)
    return {"role": role_of(acc), "name": name_of(acc)}


def cmd_gone(c):
    timeout = float(c.get("timeout", DEFAULT_TIMEOUT))
    roles = {c["role"]} if c.get("role") else None
    wait_until(lambda: not [a for a in find_all(c.get("app"), c["name"], roles) if shown(a)],
               timeout, f"{c['name']!r} still showing after {timeout} s")
    return {}


def cmd_tree(c):
    return {"tree": tree_text(c.get("app")), "nodes": tree_nodes(c.get("app"))}


def cmd_click(c):
    acc = find_one(c, predicate=lambda a: role_of(a) in INTERACTIVE or bool(action_names(a)[1]), what="control")
    if "sensitive" not in states_of(acc):
        raise Failure(f"[{role_of(acc)}] {name_of(acc)!r} is not sensitive (greyed out)")
    return {"via": do_action(acc), "role": role_of(acc)}


def cmd_set_text(c):
    acc = find_one(c, predicate=lambda a: safe(a.get_editable_text_iface) is not None, via_labels=True,
                   what="editable text")
    if "editable" not in states_of(acc):
        raise Failure(f"[{role_of(acc)}] {name_of(acc)!r} is not editable")
    if not acc.get_editable_text_iface().set_text_contents(c["text"]):
        raise Failure(f"[{role_of(acc)}] {name_of(acc)!r} refused the text")
    wait_until(lambda: text_of(acc) == c["text"] or role_of(acc) == "password text", 2,
               f"{name_of(acc)!r} holds {text_of(acc)!r}, not {c['text']!r}")
    return {"role": role_of(acc)}


def cmd_type(c):
    Atspi.generate_keyboard_event(0, c["text"], Atspi.KeySynthType.STRING)
    return {}


def cmd_keys(c):
    press(c["keys"])
    return {}


def cmd_focus(c):
    acc = find_one(c, via_labels=True, predicate=lambda a: "focusable" in states_of(a))
    return {"via": focus(acc)}


def focus(acc):
    """Gives acc the keyboard focus: Component.GrabFocus (GTK 3), else a click on it (GTK 4.8 answers
    GrabFocus with an error)."""
    if "focused" in states_of(acc):
        return "none"
    component = safe(acc.get_component_iface)
    via = "grab"
    if component is None or not safe(component.grab_focus, False):
        mouse_click(acc)
        via = "mouse"
    wait_until(lambda: "focused" in states_of(acc), 2, f"[{role_of(acc)}] {name_of(acc)!r} did not take the focus")
    return via


def checked(acc):
    states = states_of(acc)
    return "checked" in states or "pressed" in states


def cmd_toggle(c):
    acc = find_one(c, roles=TOGGLES, what="check box, switch or toggle button")
    before = checked(acc)
    if "on" in c and bool(c["on"]) == before:
        return {"checked": before, "via": "none"}
    if "sensitive" not in states_of(acc):
        raise Failure(f"[{role_of(acc)}] {name_of(acc)!r} is not sensitive (greyed out)")
    via = do_action(acc)
    try:
        wait_until(lambda: checked(acc) != before, 2, "")
    except Failure:
        if via == "mouse":
            raise Failure(f"[{role_of(acc)}] {name_of(acc)!r} stayed {'on' if before else 'off'} after a click")
        mouse_click(acc)  # an action that did not toggle (GTK 4.8's check buttons have none that work)
        via = "mouse"
        wait_until(lambda: checked(acc) != before, 2,
                   f"[{role_of(acc)}] {name_of(acc)!r} stayed {'on' if before else 'off'} after a click")
    return {"checked": not before, "via": via}


def item_text(acc):
    """What a list item or menu item says: its name, else the text of its first label."""
    if name_of(acc).strip():
        return name_of(acc)
    for node, _ in walk(acc, 0, 4):
        if role_of(node) == "label" and (text_of(node) or name_of(node)):
            return text_of(node) or name_of(node)
    return ""


def cmd_select(c):
    combo = find_one(c, roles={"combo box"}, via_labels=True, what="combo box")
    item = c["item"]
    timeout = float(c.get("timeout", DEFAULT_TIMEOUT))
    # GTK 3's combo boxes hold their menu items under the combo, each with a "click" action.
    for node, _ in walk(combo):
        if node is not combo and role_of(node) in {"menu item", "check menu item"} and matches(name_of(node), item):
            if action_names(node)[1]:
                do_action(node)
                return {"via": "menu item"}
    # GTK 4's drop-down (its toggle button) and libadwaita's combo row (no action: a click on the row) open a
    # popover holding a list; its items have no action and the popover is a surface of its own (no coordinates
    # to click), so walk to the item with the keys. The popover is under the combo (drop-down) or only joins
    # the tree once open (combo row): the items are the showing ones under the combo, else the new ones.
    def showing_items(root):
        return [n for n, _ in walk(root) if role_of(n) in {"list item", "menu item"} and shown(n)]

    app = toplevel_of(combo).get_parent()
    before = set(showing_items(app))
    opener = combo if action_names(combo)[1] else next(
        (n for n, _ in walk(combo, 0, 1) if n is not combo and action_names(n)[1]), None)
    if opener is None:
        mouse_click(combo)
    else:
        do_action(opener)
    items = []

    def listed():
        items[:] = showing_items(combo) or [n for n in showing_items(app) if n not in before]
        return any(matches(item_text(n), item) for n in items)

    wait_until(listed, timeout, f"the combo box {name_of(combo)!r} shows no item {item!r} once opened "
               f"(it shows {[item_text(n) for n in items]})")
    target = next(i for i, n in enumerate(items) if matches(item_text(n), item))
    press(["Home"] + ["Down"] * target + ["Return"])
    # Closed: its items left the tree (a combo row's popover) or stopped showing (a drop-down's).
    wait_until(lambda: not set(items) & set(showing_items(app)), timeout,
               f"the list of {name_of(combo)!r} stayed open after choosing {item!r}")
    return {"via": "keys", "moved": target}


def row_named(acc, name):
    if role_of(acc) not in ROWS:
        return False
    if matches(name_of(acc), name):
        return True
    return any(matches(name_of(n), name) or matches(text_of(n) or "", name) for n, _ in walk(acc, 0, 4)
               if role_of(n) == "label")


def cmd_activate_row(c):
    deadline = time.monotonic() + float(c.get("timeout", DEFAULT_TIMEOUT))
    while True:
        rows = [a for app in roots(c.get("app")) for a, _ in walk(app)
                if row_named(a, c["name"]) and shown(a)]
        if rows:
            break
        if time.monotonic() > deadline:
            raise Failure(f"no showing row named {c['name']!r}")
        time.sleep(POLL)
    row = rows[0]
    action, names = action_names(row)
    for wanted in ("activate", "click", "press"):
        if wanted in names:
            action.do_action(names.index(wanted))
            return {"via": wanted}
    # GTK 4's rows have no action: a double click, as a person does (a focused row's Return would do too, but
    # GTK 4.8 cannot be told to focus a row).
    mouse_click(row, "b1d")
    return {"via": "mouse"}


def cmd_text(c):
    acc = find_one(c, via_labels=True)
    text = text_of(acc)
    return {"text": name_of(acc) if text is None else text, "role": role_of(acc)}


def cmd_wait_text(c):
    """A shown label (or any text) that holds c["text"] (a text, or a list: any of them); "exact": true for the
    whole text."""
    wanted = c["text"] if isinstance(c["text"], list) else [c["text"]]
    timeout = float(c.get("timeout", DEFAULT_TIMEOUT))
    deadline = time.monotonic() + timeout
    while True:
        for app in roots(c.get("app")):
            for acc, _ in walk(app):
                if role_of(acc) in {"label", "static", "status bar", "heading", "paragraph"} and shown(acc):
                    text = text_of(acc) or name_of(acc)
                    if text in wanted or (not c.get("exact") and any(w in text for w in wanted)):
                        return {"text": text}
        if time.monotonic() > deadline:
            raise Failure(f"no label says {' or '.join(map(repr, wanted))} after {timeout} s")
        time.sleep(POLL)


def cmd_title(c):
    for app in roots(c.get("app")):
        for child in children(app):
            if role_of(child) in WINDOWS and shown(child):
                return {"title": name_of(child)}
    raise Failure("no showing window")


def cmd_labels(c):
    return {"labels": [text_of(a) or name_of(a) for app in roots(c.get("app")) for a, _ in walk(app)
                       if role_of(a) == "label" and shown(a)]}


def cmd_states(c):
    acc = find_one(c)
    return {"states": states_of(acc), "role": role_of(acc)}


def cmd_value(c):
    acc = find_one(c)
    return {"value": value_of(acc), "role": role_of(acc)}


def placeholder(name):
    """GTK 4 names an unlabelled widget after its class ("GtkSwitch", "GtkToggleButton"): no name to a person."""
    return bool(re.fullmatch(r"(Gtk|Adw)[A-Z][A-Za-z]*", name))


def named(acc):
    name = name_of(acc).strip()
    if name and not placeholder(name):
        return True
    # A row is read out by its content (GTK 4's list box rows have no name of their own), however deep:
    # libadwaita's expander row is an unnamed row holding a list whose first row is the titled one.
    return role_of(acc) in ROWS and any(role_of(n) == "label" and (text_of(n) or name_of(n)).strip()
                                        for n, _ in walk(acc, 0, 8))


def cmd_set_value(c):
    acc = find_one(c, predicate=lambda a: safe(a.get_value_iface) is not None, via_labels=True, what="value")
    if not acc.get_value_iface().set_current_value(float(c["value"])):
        raise Failure(f"[{role_of(acc)}] {name_of(acc)!r} refused the value {c['value']}")
    return {"value": value_of(acc)}


def cmd_extents(c):
    """Where the widget is in its window, and the window's size (pixels): whether the window shows it whole."""
    acc = find_one(c)
    box, window = extents(acc), extents(toplevel_of(acc))
    if box is None or window is None:
        raise Failure(f"[{role_of(acc)}] {name_of(acc)!r} has no extents")
    return {"box": [box.x, box.y, box.width, box.height], "window": [window.width, window.height]}


def cmd_names(c):
    unnamed = []

    def visit(acc):
        role = role_of(acc)
        if role in INTERACTIVE and shown(acc) and not named(acc):
            parent = acc.get_parent()
            unnamed.append(describe(acc, 0) + f" (in [{role_of(parent)}] {name_of(parent)!r})")
        # A combo box's parts (GTK 4's drop-down button "GtkToggleButton") are read out as the combo box.
        if role != "combo box":
            for child in children(acc):
                visit(child)

    for app in roots(c.get("app")):
        visit(app)
    return {"unnamed": unnamed}


def cmd_close_window(c):
    """Asks the top-level X window titled `title` to close, as a window manager's close button does
    (WM_DELETE_WINDOW): under Xvfb there is no window manager, and GTK draws no close button of its own."""
    import ctypes
    from ctypes import POINTER, byref, c_char_p, c_int, c_long, c_uint, c_ulong, c_void_p
    x11 = ctypes.CDLL("libX11.so.6")
    x11.XOpenDisplay.restype = c_void_p
    x11.XOpenDisplay.argtypes = [c_char_p]
    x11.XDefaultRootWindow.restype = c_ulong
    x11.XDefaultRootWindow.argtypes = [c_void_p]
    x11.XInternAtom.restype = c_ulong
    x11.XInternAtom.argtypes = [c_void_p, c_char_p, c_int]
    x11.XQueryTree.argtypes = [c_void_p, c_ulong, POINTER(c_ulong), POINTER(c_ulong), POINTER(POINTER(c_ulong)), POINTER(c_uint)]
    x11.XGetWindowProperty.argtypes = [c_void_p, c_ulong, c_ulong, c_long, c_long, c_int, c_ulong, POINTER(c_ulong),
                                       POINTER(c_int), POINTER(c_ulong), POINTER(c_ulong), POINTER(c_void_p)]
    x11.XFree.argtypes = [c_void_p]

    class ClientMessage(ctypes.Structure):
        _fields_ = [("type", c_int), ("serial", c_ulong), ("send_event", c_int), ("display", c_void_p),
                    ("window", c_ulong), ("message_type", c_ulong), ("format", c_int), ("data", c_long * 5),
                    ("pad", c_long * 12)]

    x11.XSendEvent.argtypes = [c_void_p, c_ulong, c_int, c_long, POINTER(ClientMessage)]
    x11.XFlush.argtypes = x11.XCloseDisplay.argtypes = [c_void_p]
    display = x11.XOpenDisplay(None)
    if not display:
        raise Failure("cannot open the X display")
    atom = lambda name: x11.XInternAtom(display, name, 0)  # noqa: E731

    def title(window):
        kind, size, count, after, data = c_ulong(), c_int(), c_ulong(), c_ulong(), c_void_p()
        if x11.XGetWindowProperty(display, window, atom(b"_NET_WM_NAME"), 0, 1024, 0, atom(b"UTF8_STRING"), byref(kind),
                                  byref(size), byref(count), byref(after), byref(data)) != 0 or not data.value:
            return None
        text = ctypes.string_at(data.value, count.value).decode("utf-8", "replace")
        x11.XFree(data)
        return text

    root, parent = c_ulong(), c_ulong()
    windows, count = POINTER(c_ulong)(), c_uint()
    x11.XQueryTree(display, x11.XDefaultRootWindow(display), byref(root), byref(parent), byref(windows), byref(count))
    titles = [(windows[index], title(windows[index])) for index in range(count.value)]
    matching = [window for window, text in titles if text == c["title"]]
    for window in matching:
        event = ClientMessage(type=33, window=window, format=32, message_type=atom(b"WM_PROTOCOLS"))
        event.data[0] = atom(b"WM_DELETE_WINDOW")
        x11.XSendEvent(display, window, 0, 0, byref(event))
    x11.XFlush(display)
    x11.XCloseDisplay(display)
    if not matching:
        raise Failure(f"no X window titled {c['title']!r} (there are {[text for _, text in titles if text]})")
    return {"closed": len(matching)}


def description_of(acc):
    return safe(acc.get_description, "") or ""


def focused_in(app_name):
    """The focused widget of the application's showing window, or None. GTK 4.8 can leave FOCUSED on a list
    whose row took the focus: the innermost one is the focus."""
    found = None
    for app in roots(app_name):
        for acc, _ in walk(app):
            if "focused" in states_of(acc) and role_of(acc) not in WINDOWS and shown(acc):
                found = acc
    return found


def focus_report(acc):
    if acc is None:
        return {"role": "", "name": "", "states": [], "description": ""}
    return {"role": role_of(acc), "name": name_of(acc), "states": states_of(acc), "description": description_of(acc)}


def cmd_focused(c):
    return focus_report(focused_in(c.get("app")))


def cmd_tab_walk(c):
    keys = c.get("keys") or ["Tab"]
    limit = int(c.get("limit", 40))
    stops = []
    start = focused_in(c.get("app"))
    previous = start
    for _ in range(limit):
        press(keys)
        # The focus moves when GTK has handled the key: wait for a change (a single focusable control keeps it).
        deadline = time.monotonic() + 1.5
        current = focused_in(c.get("app"))
        while current == previous and time.monotonic() < deadline:
            time.sleep(POLL)
            current = focused_in(c.get("app"))
        stops.append(focus_report(current))
        if current is None or (start is not None and current == start) or current == previous:
            break
        if start is None:
            start = current
        previous = current
    return {"stops": stops}


COMMANDS = {
    "wait-app": cmd_wait_app, "wait": cmd_wait, "gone": cmd_gone, "tree": cmd_tree, "click": cmd_click,
    "set-text": cmd_set_text, "type": cmd_type, "keys": cmd_keys, "focus": cmd_focus, "toggle": cmd_toggle,
    "select": cmd_select, "activate-row": cmd_activate_row, "text": cmd_text, "states": cmd_states,
    "value": cmd_value, "names": cmd_names, "wait-text": cmd_wait_text, "set-value": cmd_set_value, "labels": cmd_labels,
    "title": cmd_title, "close-window": cmd_close_window, "focused": cmd_focused, "tab-walk": cmd_tab_walk, "extents": cmd_extents,
}


def execute(command):
    try:
        handler = COMMANDS.get(command.get("cmd"))
        if handler is None:
            raise Failure(f"unknown command {command.get('cmd')!r} (known: {sorted(COMMANDS)})")
        reply = handler(command)
        reply["ok"] = True
        return reply
    except Failure as failure:
        return {"ok": False, "error": str(failure), "tree": tree_text(command.get("app"))}
    except (KeyError, ValueError, TypeError, GLib.Error) as error:
        return {"ok": False, "error": f"{type(error).__name__}: {error}", "tree": tree_text(command.get("app"))}


def main(argv):
    Atspi.init()
    if len(argv) >= 2 and argv[1] == "serve":
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(execute(json.loads(line)), ensure_ascii=False), flush=True)
        return 0
    if len(argv) == 3 and argv[1] == "run":
        for command in json.loads(argv[2]):
            reply = execute(command)
            print(json.dumps(reply, ensure_ascii=False), flush=True)
            if not reply["ok"]:
                return 1
        return 0
    if len(argv) in (2, 3) and argv[1] == "tree":
        print(tree_text(argv[2] if len(argv) == 3 else None))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
