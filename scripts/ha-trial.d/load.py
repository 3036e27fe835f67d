#!/usr/bin/env python3
"""The laptops of scripts/ha-trial: participants who join a study and upload answer sheets
through two amble-server processes, each laptop with an outbox it drains in order and retries
until every item is acknowledged (201 or 200), as `amble study upload` does.

    load.py run WORK CODES_FILE RATE SERVER_URL...

joins one participant per code (alternating between the servers), then each laptop makes a
new item every 1/RATE seconds (open loop: items are made while the server is away too) and
uploads its outbox. Writes WORK/acks (one line per acknowledged item: sent and answered
monotonic times, item id, SHA-256, 201 or 200), WORK/answers (a count per HTTP status or error). Runs until
WORK/stop exists, then stops making items and drains the outboxes (at most 120 s), writing
WORK/left (items never acknowledged).

    load.py now          prints time.monotonic() (the clock of WORK/acks), for event times
"""
import hashlib
import http.client
import json
import os
import random
import sys
import threading
import time
import uuid
from urllib.parse import urlparse


def request(conn, method, path, body=None, headers=None):
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    return response.status, response.read(), response.getheader("Retry-After")


def join(url, code):
    parsed = urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    for _ in range(60):
        try:
            status, body, _ = request(conn, "GET", f"/v1/join/{code}")
            if status != 200:
                raise RuntimeError(f"GET /v1/join/{code}: {status} {body[:200]!r}")
            preview = json.loads(body)
            consent = preview["consent"]
            joining = json.dumps({"code": code, "consent_version": consent["version"],
                                  "consent_sha256": consent["sha256"], "accepted_at": time.time() - 5})
            status, body, _ = request(conn, "POST", "/v1/join", joining, {"Content-Type": "application/json"})
            if status != 201:
                raise RuntimeError(f"POST /v1/join: {status} {body[:200]!r}")
            return json.loads(body)["access_token"]
        except (OSError, http.client.HTTPException):
            conn.close()
            time.sleep(0.5)
    raise RuntimeError(f"{url}: no answer to the join")


class Laptop(threading.Thread):
    def __init__(self, trial, url, token, rate, index):
        super().__init__(daemon=True)
        self.trial, self.url, self.token, self.rate, self.index = trial, urlparse(url), token, rate, index
        self.outbox = []   # (item_id, body, sha256), oldest first

    def make_item(self):
        body = json.dumps({"questionnaire": "evening", "answered_at": time.time(),
                           "answers": {"mood": str(random.randint(1, 5)), "note": uuid.uuid4().hex}},
                          sort_keys=True).encode()
        self.outbox.append((uuid.uuid4().hex, body, hashlib.sha256(body).hexdigest()))

    def run(self):
        conn = None
        due = time.monotonic() + random.random() / self.rate
        while True:
            now = time.monotonic()
            stopping = self.trial.stopping.is_set()
            if not stopping and now >= due:
                self.make_item()
                due += 1 / self.rate
            if not self.outbox:
                if stopping:
                    return
                time.sleep(max(0, min(due - time.monotonic(), 0.5)))
                continue
            if self.trial.give_up.is_set():
                return
            item_id, body, sha = self.outbox[0]
            sent = time.monotonic()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=15)
                status, answer, retry_after = request(conn, "PUT", f"/v1/items/answer/{item_id}", body, {
                    "Authorization": f"Bearer {self.token}", "X-Amble-SHA256": sha,
                    "Content-Type": "application/json"})
                outcome = str(status)
            except (OSError, http.client.HTTPException) as error:
                status, retry_after, outcome = None, None, type(error).__name__
                if conn is not None:
                    conn.close()
                conn = None
            self.trial.count(outcome)
            if status in (200, 201):
                self.trial.ack(sent, time.monotonic(), item_id, sha, status)
                self.outbox.pop(0)
            elif status == 429:
                time.sleep(float(retry_after or 1))
            elif status is not None and 400 <= status < 500:
                self.trial.count(f"refused {item_id}: {status} {answer[:120]!r}")
                self.outbox.pop(0)
            else:
                time.sleep(0.25)   # the server or its database is away: the outbox keeps it


class Trial:
    def __init__(self, work):
        self.work = work
        self.lock = threading.Lock()
        self.acks = open(os.path.join(work, "acks"), "a", buffering=1)
        self.answers = {}
        self.stopping = threading.Event()
        self.give_up = threading.Event()

    def ack(self, sent, answered, item_id, sha, status):
        with self.lock:
            self.acks.write(f"{sent:.6f} {answered:.6f} {item_id} {sha} {status}\n")

    def count(self, outcome):
        with self.lock:
            self.answers[outcome] = self.answers.get(outcome, 0) + 1


def run(work, codes_file, rate, urls):
    codes = [line.strip() for line in open(codes_file) if line.strip()]
    trial = Trial(work)
    laptops = [Laptop(trial, urls[i % len(urls)], join(urls[i % len(urls)], code), rate, i) for i, code in enumerate(codes)]
    open(os.path.join(work, "joined"), "w").write(f"{len(laptops)}\n")
    for laptop in laptops:
        laptop.start()
    while not os.path.exists(os.path.join(work, "stop")):
        time.sleep(0.2)
    trial.stopping.set()
    deadline = time.monotonic() + 120
    for laptop in laptops:
        laptop.join(max(0, deadline - time.monotonic()))
    trial.give_up.set()
    with open(os.path.join(work, "left"), "w") as left:
        for laptop in laptops:
            for item_id, _, sha in laptop.outbox:
                left.write(f"{item_id} {sha}\n")
    with open(os.path.join(work, "answers"), "w") as out:
        json.dump(trial.answers, out, indent=1, sort_keys=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["now"]:
        print(f"{time.monotonic():.6f}")
    elif sys.argv[1:2] == ["run"] and len(sys.argv) >= 6:
        run(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5:])
    else:
        sys.exit(__doc__)
