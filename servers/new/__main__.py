from servers.new.generator import main

main()
