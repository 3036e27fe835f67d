#!/usr/bin/env python3
"""Writes the package's copyright file (Debian machine-readable format 1.0) from
`amble licenses --json` on standard input: Amble itself (Apache-2.0, LICENSE), then each
component the programs are built from, with its licence and source; tests-only components
are left out. Usage: amble licenses --json | copyright.py VERSION > copyright"""

import json
import sys

components = [c for c in json.load(sys.stdin) if c.get("use") != "tests"]

# Licences whose full text Debian ships in /usr/share/common-licenses.
COMMON = {"Apache-2.0": "Apache-2.0", "LGPL-2.1-or-later": "LGPL-2.1"}

out = [
    "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
    "Upstream-Name: Amble",
    "Comment: The programs /usr/bin/ambled and /usr/bin/amble are statically linked with the",
    " Swift runtime, Foundation and the Swift packages below; they load the system",
    " libraries below (libgpiod, libi2c, SQLite, zlib) from their own Debian packages,",
    " whose copyright files are in /usr/share/doc/PACKAGE/copyright. `amble licenses`",
    " prints the same list.",
    "",
    "Files: *",
    "Copyright: 2026 The Amble authors",
    "License: Apache-2.0",
    "",
]
used = {"Apache-2.0"}
expression = ["Apache-2.0"]
copyright_lines, comment_lines = ["2026 The Amble authors"], []
for c in components:
    lic = c["license"]
    name = c["name"]
    copyright_lines.append(f"the {name.split(' (')[0]} authors ({c['source']})")
    comment_lines.append(f"{name}: {lic}, {c['license_url']}, used for {c['used_for']}"
                         + (f" (Debian: /usr/share/doc/{c['debian_package']}/copyright)" if c.get("debian_package") else ""))
    if f"({lic})" not in expression and lic not in expression:
        expression.append(f"({lic})" if " " in lic else lic)
    for part in lic.replace(" AND ", "|").replace(" WITH ", "|").split("|"):
        used.add(part.strip())
out += ["Files: usr/bin/ambled usr/bin/amble",
        "Copyright: " + copyright_lines[0]] + ["           " + line for line in copyright_lines[1:]] + [
        "License: " + " and ".join(expression),
        "Comment: What each part is, its licence and where its text is:"] + [" " + line for line in comment_lines] + [""]

texts = {
    "Apache-2.0": "On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0.",
    "LGPL-2.1-or-later": "On Debian systems the full text is in /usr/share/common-licenses/LGPL-2.1.",
    "Swift-exception": "Runtime Library Exception to the Apache 2.0 License: as an exception, if you use\n"
                       " this Software to compile your source code and portions of this Software are\n"
                       " embedded into the binary product as a result, you may redistribute such product\n"
                       " without providing attribution as would otherwise be required by Sections 4(a),\n"
                       " 4(b) and 4(d) of the License. https://swift.org/LICENSE.txt",
    "MIT": "Permission is hereby granted, free of charge, to any person obtaining a copy of\n"
           " this software and associated documentation files, to deal in the Software\n"
           " without restriction, subject to the copyright notice and this permission notice\n"
           " being included in all copies; the software is provided \"as is\", without\n"
           " warranty of any kind. Each component's full MIT text is at its licence address.",
}
for lic in sorted(used):
    text = texts.get(lic, "The full text is at the licence address of the component that uses it.")
    out += [f"License: {lic}", " " + text, ""]

sys.stdout.write("\n".join(out).rstrip("\n") + "\n")
