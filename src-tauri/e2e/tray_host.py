#!/usr/bin/env python3
"""A stand-in tray host for the end-to-end test: a StatusNotifierWatcher on the
session bus, as a desktop's panel runs one, so the app finds a tray and goes
into it (src-tauri/src/windows.rs, tray_available). It records each item that
registers (one line per item in the file named by its argument), which is how
the test sees that the tray icon exists. Uses jeepney (pure Python D-Bus).
"""

import sys

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.kde.StatusNotifierWatcher"
INTROSPECTION = """<node><interface name="org.kde.StatusNotifierWatcher">
<method name="RegisterStatusNotifierItem"><arg type="s" direction="in"/></method>
<method name="RegisterStatusNotifierHost"><arg type="s" direction="in"/></method>
<property name="RegisteredStatusNotifierItems" type="as" access="read"/>
<property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
<property name="ProtocolVersion" type="i" access="read"/>
</interface></node>"""


def main():
    out = sys.argv[1]
    conn = open_dbus_connection(bus="SESSION")
    reply = conn.send_and_get_reply(message_bus.RequestName(NAME, 4))
    assert reply.body[0] == 1, f"could not own {NAME}: {reply.body}"
    items = []
    print("tray host: ready", flush=True)
    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        member = msg.header.fields.get(HeaderFields.member)
        sender = msg.header.fields.get(HeaderFields.sender)
        props = {
            "RegisteredStatusNotifierItems": ("as", items),
            "IsStatusNotifierHostRegistered": ("b", True),
            "ProtocolVersion": ("i", 0),
        }
        if member == "RegisterStatusNotifierItem":
            # The item names its object path, or its bus name (then it sits at /StatusNotifierItem).
            item = msg.body[0] if msg.body[0].startswith(":") else f"{sender}{msg.body[0]}"
            items.append(item)
            with open(out, "a") as f:
                f.write(item + "\n")
            conn.send(new_method_return(msg))
        elif member == "RegisterStatusNotifierHost":
            conn.send(new_method_return(msg))
        elif member == "Get":
            conn.send(new_method_return(msg, "v", (props.get(msg.body[1], ("b", False)),)))
        elif member == "GetAll":
            conn.send(new_method_return(msg, "a{sv}", (props,)))
        elif member == "Introspect":
            conn.send(new_method_return(msg, "s", (INTROSPECTION,)))
        else:
            conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod"))


if __name__ == "__main__":
    main()
