from servers.basics.server import main

main()
