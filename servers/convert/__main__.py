from servers.convert.server import main

main()
