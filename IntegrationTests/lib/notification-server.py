#!/usr/bin/env python3
"""A desktop notification server (org.freedesktop.Notifications) for the notifications scenario, on the private
session bus whose address is in DBUS_SESSION_BUS_ADDRESS (dbus-next, from PyPI: pure Python, no GLib).

  notification-server.py LOG

Appends each Notify call to LOG as one JSON line {"id", "app", "summary", "body", "actions"}. Writing a line
"ID KEY" to LOG.actions makes it emit ActionInvoked(ID, KEY), as a desktop does when the user clicks a button."""
import asyncio
import json
import os
import sys

from dbus_next.aio import MessageBus
from dbus_next.service import ServiceInterface, method, signal

log = sys.argv[1]


class Notifications(ServiceInterface):
    def __init__(self):
        super().__init__("org.freedesktop.Notifications")
        self.last = 0

    @method()
    def Notify(self, app: "s", replaces: "u", icon: "s", summary: "s", body: "s", actions: "as",  # noqa: F821
               hints: "a{sv}", timeout: "i") -> "u":  # noqa: F821
        self.last += 1
        with open(log, "a") as file:
            file.write(json.dumps({"id": self.last, "app": app, "summary": summary, "body": body,
                                   "actions": actions}) + "\n")
        return self.last

    @method()
    def GetCapabilities(self) -> "as":  # noqa: F821
        return ["actions", "body", "body-markup"]

    @method()
    def GetServerInformation(self) -> "ssss":  # noqa: F821
        return ["interpay-test", "InterPay", "1", "1.2"]

    @method()
    def CloseNotification(self, id: "u"):  # noqa: F821
        pass

    @signal()
    def ActionInvoked(self, id, key) -> "us":  # noqa: F821
        return [id, key]


async def main():
    bus = await MessageBus().connect()
    server = Notifications()
    bus.export("/org/freedesktop/Notifications", server)
    await bus.request_name("org.freedesktop.Notifications")
    open(log + ".ready", "w").close()
    done = 0
    while True:
        await asyncio.sleep(0.05)
        if not os.path.exists(log + ".actions"):
            continue
        with open(log + ".actions") as file:
            lines = file.read().splitlines()
        for line in lines[done:]:
            notification, key = line.split()
            server.ActionInvoked(int(notification), key)
        done = len(lines)


asyncio.run(main())
