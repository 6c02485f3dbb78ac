"""The rules of Hearts as pure functions over immutable values.

Nothing here touches a clock, a random source, the network or a file: chance and time come
in from outside, inside the commands.
"""
