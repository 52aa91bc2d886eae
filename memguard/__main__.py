from memguard.cli import main

main()
