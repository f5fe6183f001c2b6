import os
import signal


def main() -> None:
    # Importing the server takes about a second. Ctrl-C meanwhile ends it at once with exit code 130
    # (as a shell reports Ctrl-C) and no traceback: a KeyboardInterrupt raised inside a library's import
    # can come out as another error. Once serving, the transport takes Ctrl-C over and stops gently.
    signal.signal(signal.SIGINT, lambda signum, frame: os._exit(130))
    from servers.convert.server import main as run_server

    run_server()


if __name__ == "__main__":
    main()
