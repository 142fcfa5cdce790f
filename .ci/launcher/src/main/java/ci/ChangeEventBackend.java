package ci;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.oplog.Oplog;

/**
 * The in-memory backend, with databases whose writes reach change streams as MongoDB reports them:
 * findAndModify (findOneAndUpdate/-Replace/-Delete) writes emit events, and update events carry
 * MongoDB's documentKey and updateDescription (see {@link ChangeEventOplog}).
 */
final class ChangeEventBackend extends MemoryBackend {

    @Override
    public ChangeEventDatabase openOrCreateDatabase(String databaseName) {
        return new ChangeEventDatabase(databaseName, getCursorRegistry());
    }

    @Override
    protected Oplog createOplog() {
        return new ChangeEventOplog(super.createOplog(), this);
    }
}
