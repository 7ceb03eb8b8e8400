"""The ``irc`` command of the irc-ov package: the same command line as the Rust binary
(flags, output, exit codes), run in this process."""

import sys


def main() -> None:
    from . import _native

    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_native.main(["irc", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
