from servers.audit.cli import main

main()
