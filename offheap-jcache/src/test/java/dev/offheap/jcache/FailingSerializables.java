package dev.offheap.jcache;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.io.Serializable;

/** Values whose Java serialization fails one way, for tests of what a failed store or read leaves. */
final class FailingSerializables {
    private FailingSerializables() {
    }

    /** Cannot be serialized: a put of it fails inside the store, after its event was made. */
    static final class Unwritable implements Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Serial
        private void writeObject(ObjectOutputStream out) throws IOException {
            throw new IOException("this value cannot be written");
        }
    }

    /** Serializes fine; deserializing fails (a readObject that validates, a changed class). */
    static final class Unreadable implements Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Serial
        private void readObject(ObjectInputStream in) throws IOException {
            throw new IOException("this value cannot be read back");
        }
    }
}
