/* placeholder: the polyfill is being written */
