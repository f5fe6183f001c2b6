from servers.bench.run import main

main()
