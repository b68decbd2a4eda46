#!/usr/bin/env python3
"""Regenerate the currency enum in protocol/schema/common.json from protocol/currencies.json.

The frame schemas are edited by hand; only `$defs.currency.enum` in common.json is generated.
Usage:
    python3 protocol/schema/generate.py          # rewrite common.json
    python3 protocol/schema/generate.py --check  # exit 1 if common.json is out of date
Deterministic: codes sorted in ASCII order, 2-space indentation, UTF-8, trailing newline.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CURRENCIES = os.path.join(HERE, "..", "currencies.json")
COMMON = os.path.join(HERE, "common.json")


def currency_codes():
    with open(CURRENCIES, encoding="utf-8") as f:
        return sorted(json.load(f)["currencies"])


def render():
    with open(COMMON, encoding="utf-8") as f:
        common = json.load(f)
    common["$defs"]["currency"]["enum"] = currency_codes()
    return json.dumps(common, indent=2, ensure_ascii=False) + "\n"


def main():
    text = render()
    with open(COMMON, encoding="utf-8") as f:
        current = f.read()
    if "--check" in sys.argv[1:]:
        if current != text:
            print("common.json: currency enum out of date; run protocol/schema/generate.py")
            return 1
        print("common.json: up to date")
        return 0
    if current != text:
        with open(COMMON, "w", encoding="utf-8") as f:
            f.write(text)
        print("common.json: rewritten")
    else:
        print("common.json: unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
