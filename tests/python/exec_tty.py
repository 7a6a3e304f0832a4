"""Drives the real `kubectl exec -it POD -- sh` on a pseudo-terminal, as a person at a terminal would: types
each line given on the command line (a carriage return ends it, as Enter sends in raw mode), waits for the
shell's answer, and prints what the terminal showed (as a Python literal) and kubectl's exit code.

    python3 exec_tty.py POD LINE...      # KUBECONFIG names the cluster
"""

import os
import pty
import select
import sys
import time

PROMPT = b"# "


def main():
    pod, lines = sys.argv[1], sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("kubectl", ["kubectl", "exec", "-it", pod, "--", "sh"])
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

    read_until(lambda: shown.endswith(PROMPT))
    for line in lines:
        before = shown.count(PROMPT)
        os.write(fd, line.encode() + b"\r")
        read_until(lambda: shown.count(PROMPT) > before, 5.0)
    read_until(lambda: False, 1.0)
    _, status = os.waitpid(pid, 0)
    print(repr(shown.decode(errors="replace")))
    print(os.waitstatus_to_exitcode(status))


main()
