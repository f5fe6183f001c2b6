from instruments.new.generator import main

main()
