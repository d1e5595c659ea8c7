from sagelaunch.app import main

main()
