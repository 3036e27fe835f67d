#!/usr/bin/env python3
"""Prints the tables of an HTML page (the study server's dashboard) as aligned text, for
scripts/demo-server. Standard library only.

    dump-tables.py PAGE.html
"""
import html.parser
import sys


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.heading, self.cell, self.in_heading = [], "", None, False

    def handle_starttag(self, tag, attrs):
        if tag == "h2":
            self.in_heading, self.heading = True, ""
        elif tag == "table":
            self.tables.append((self.heading, []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "h2":
            self.in_heading = False
        elif tag in ("td", "th") and self.cell is not None and self.tables and self.tables[-1][1]:
            self.tables[-1][1][-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.in_heading:
            self.heading += data
        if self.cell is not None:
            self.cell += data


parser = Tables()
parser.feed(open(sys.argv[1], encoding="utf-8").read())
for heading, rows in parser.tables:
    rows = [row for row in rows if row]
    widths = [max(len(row[i]) if i < len(row) else 0 for row in rows) for i in range(max(map(len, rows)))]
    print(f"\n{heading}")
    for row in rows:
        print("  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
