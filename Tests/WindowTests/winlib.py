"""A minimal AT-SPI driver for the window tests (WindowTests/LocalWindowRun.swift runs a script that imports it).

Stand-in until the shared harness (Tests/ArchiverTestSupport/WindowSession.swift + atspi/driver.py) lands.
Names are matched as GTK 4.8 exposes them: a labelled mnemonic button is "C_ompress Compress", so a widget
matches NAME when its name is NAME or ends with " NAME".
"""
import json, os, subprocess, sys, time
import pyatspi

INTERACTIVE = {"push button", "toggle button", "check box", "text", "password text", "combo box", "menu button"}


def app(name, timeout=15):
    end = time.time() + timeout
    while time.time() < end:
        for a in pyatspi.Registry.getDesktop(0):
            if a is not None and a.name == name and a.childCount > 0:
                # Walking a window that is still being built can hand libdbus an object path that is not
                # valid yet (it aborts the client): let the first frame settle.
                time.sleep(1.0)
                return a
        time.sleep(0.1)
    fail(f"application {name} did not appear")


def nodes(n):
    yield n
    for i in range(n.childCount):
        c = n.getChildAtIndex(i)
        if c is not None:
            yield from nodes(c)


def matches(n, role, name):
    return (role is None or n.getRoleName() == role) and (n.name == name or n.name.endswith(" " + name))


def find(root, name, role=None, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        for n in nodes(root):
            if matches(n, role, name):
                return n
        time.sleep(0.1)
    fail(f"no {role or 'widget'} named {name!r}; labels: {labels(root)}")


def labels(root):
    return [n.name for n in nodes(root) if n.getRoleName() == "label"]


def wait_label(root, predicate, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        for text in labels(root):
            if predicate(text):
                return text
        time.sleep(0.1)
    fail(f"no matching label; labels: {labels(root)}")


def set_text(root, name, text):
    find(root, name, "text").queryEditableText().setTextContents(text)
    time.sleep(0.2)


def click(root, name, role=None):
    """The widget's first action; a mouse click in its middle when it has none (AdwComboRow)."""
    node = find(root, name, role)
    try:
        action = node.queryAction()
        if action.nActions > 0:
            action.doAction(0)
            time.sleep(0.2)
            return
    except NotImplementedError:
        pass
    mouse(node)


def mouse(node):
    x, y, w, h = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    pyatspi.Registry.generateMouseEvent(x + w // 2, y + h // 2, pyatspi.MOUSE_B1C)
    time.sleep(0.4)


def sensitive(root, name, role=None):
    return find(root, name, role).getState().contains(pyatspi.STATE_SENSITIVE)


def select(root, combo, item):
    """Opens a combo row's popover and picks the item by keyboard (Home, Down…, Return): AT-SPI cannot select
    in a GtkListView, and a popover's own surface has no screen coordinates under GTK 4."""
    click(root, combo, "combo box")
    time.sleep(0.6)  # the popover's list is built now; walking it half-built aborts libdbus (see app())
    items = None
    end = time.time() + 5
    while items is None and time.time() < end:
        for n in nodes(root):
            if n.getRoleName() == "list" and n.name == "GtkListView" and n.childCount > 1:
                names = [" ".join(l.name for l in nodes(c) if l.getRoleName() == "label") for c in
                         (n.getChildAtIndex(i) for i in range(n.childCount))]
                if item in names:
                    items = names
        time.sleep(0.1)
    if items is None:
        fail(f"no item {item!r} in {combo!r}")
    keys(["Home"] + ["Down"] * items.index(item) + ["Return"])


KEYSYMS = {"Home": 0xFF50, "Down": 0xFF54, "Up": 0xFF52, "Return": 0xFF0D, "Escape": 0xFF1B, "Tab": 0xFF09}


def keys(names):
    for name in names:
        pyatspi.Registry.generateKeyboardEvent(KEYSYMS[name], None, pyatspi.KEY_SYM)
        time.sleep(0.08)
    time.sleep(0.3)


def unnamed(root):
    """Interactive controls that are showing without an accessible name or a role."""
    bad = []
    for n in nodes(root):
        role = n.getRoleName()
        if role in INTERACTIVE and n.getState().contains(pyatspi.STATE_VISIBLE):
            if not n.name.strip() or role == "unknown":
                bad.append(role)
    return bad


def shot(name):
    folder = os.environ["SCREENSHOTS"]
    os.makedirs(folder, exist_ok=True)
    subprocess.run(["import", "-window", "root", os.path.join(folder, name + ".png")], check=False)


def report(**values):
    print("RESULT " + json.dumps(values), flush=True)


def fail(message):
    print("FAIL " + message, flush=True)
    sys.exit(1)
