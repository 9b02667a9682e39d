"""What people read: digests, secrets pages, the replay, the choices of the click-to-move page; render/."""
