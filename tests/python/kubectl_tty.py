"""Drives the real kubectl on a pseudo-terminal (`kubectl exec -it POD -- sh`, `kubectl run -it …`), as a
person at a terminal would: waits for the first prompt (or, when it is not shown, for `If you don't see a
command prompt…`), types each line given (a carriage return ends it, as Enter sends in raw mode), waits for
the shell's next prompt, and prints what the terminal showed (as a Python literal) and kubectl's exit code.

    python3 kubectl_tty.py PROMPT KUBECTL-ARG... :: LINE...      # KUBECONFIG names the cluster
"""

import os
import pty
import select
import sys
import time

HINT = b"try pressing enter."


def main():
    prompt = sys.argv[1].encode()
    split = sys.argv.index("::")
    args, lines = sys.argv[2:split], sys.argv[split + 1 :]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("kubectl", ["kubectl", *args])
    shown = b""

    def read_until(done, seconds=20.0):
        nonlocal shown
        end = time.time() + seconds
        while time.time() < end and not done():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                shown += chunk

    read_until(lambda: shown.endswith(prompt) or shown.rstrip().endswith(HINT), 60.0)
    # kubectl prints the hint before it puts the terminal in raw mode; a key typed before that would be
    # echoed by the terminal itself as well.
    read_until(lambda: False, 0.5)
    for line in lines:
        before = shown.count(prompt)
        os.write(fd, line.encode() + b"\r")
        read_until(lambda: shown.count(prompt) > before, 5.0)
    read_until(lambda: False, 1.0)
    _, status = os.waitpid(pid, 0)
    print(repr(shown.decode(errors="replace")))
    print(os.waitstatus_to_exitcode(status))


main()
