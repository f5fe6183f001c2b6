from instruments.audit.cli import main

main()
