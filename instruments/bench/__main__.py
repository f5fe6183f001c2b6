from instruments.bench.run import main

main()
