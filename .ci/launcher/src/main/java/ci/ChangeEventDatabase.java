package ci;

import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DatabaseResolver;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;

import io.netty.channel.Channel;

/**
 * A database of {@link ChangeEventCollection}s. The library hands the findAndModify command to the
 * collection without the oplog, so its writes never reached change streams; here the command goes
 * to {@link ChangeEventCollection#findAndModify(Document, Oplog)}, which reports them.
 */
final class ChangeEventDatabase extends MemoryDatabase {

    ChangeEventDatabase(String databaseName, CursorRegistry cursorRegistry) {
        super(databaseName, cursorRegistry);
    }

    @Override
    protected ChangeEventCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        return new ChangeEventCollection(this, collectionName, options, cursorRegistry);
    }

    @Override
    public Document handleCommand(Channel channel, String command, Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        if (command.equalsIgnoreCase("findAndModify")) {
            // What the library does before any command but the getLastError family.
            clearLastStatus(channel);
            String collectionName = query.get(command).toString();
            ChangeEventCollection collection = (ChangeEventCollection) resolveOrCreateCollection(collectionName);
            return collection.findAndModify(query, oplog);
        }
        return super.handleCommand(channel, command, query, databaseResolver, oplog);
    }
}
