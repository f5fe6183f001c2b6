from servers.weather.server import main

main()
