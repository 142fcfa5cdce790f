package ci;

import java.util.List;
import java.util.concurrent.CountDownLatch;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;

/**
 * Starts mongo-java-server (in-memory backend, oplog enabled for change streams, whose events
 * {@link ChangeEventBackend} makes MongoDB's) on 127.0.0.1:&lt;port&gt; (argv[0], default 27017),
 * reporting MongoDB 6.0 / wire version 17.
 * Prints "READY &lt;port&gt;" once listening; shuts down on SIGTERM/SIGINT.
 */
public final class MongoLauncher {

    /** The library's ServerVersion enum stops at MONGO_5_0 (wire 8); Node driver 7 needs >= 9. */
    enum Mongo60 implements MongoVersion {
        MONGO_6_0;

        @Override
        public List<Integer> getVersionArray() {
            return List.of(6, 0, 0);
        }

        @Override
        public int getWireVersion() {
            return 17;
        }
    }

    public static void main(String[] args) throws Exception {
        // slf4j-simple: keep the log quiet unless overridden with -Dorg.slf4j.simpleLogger.defaultLogLevel=...
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        int port = 27017;
        if (args.length > 0) {
            try {
                port = Integer.parseInt(args[0]);
            } catch (NumberFormatException e) {
                System.err.println("usage: java -jar mongo-launcher.jar [port]  (bad port: " + args[0] + ")");
                System.exit(2);
            }
        }

        ChangeEventBackend backend = new ChangeEventBackend();
        backend.version(Mongo60.MONGO_6_0);
        MongoServer server = new MongoServer(backend);
        server.enableOplog();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("STOPPING");
            System.out.flush();
            try {
                server.shutdownNow();
            } finally {
                stopped.countDown();
            }
        }, "mongo-launcher-shutdown"));

        try {
            server.bind("127.0.0.1", port);
        } catch (Throwable e) { // netty rethrows the checked BindException sneakily
            System.err.println("FAILED to bind 127.0.0.1:" + port + ": " + e);
            System.err.flush();
            // halt: netty's non-daemon event-loop threads would keep the JVM alive, and the
            // shutdown hook must not announce a server that never ran
            Runtime.getRuntime().halt(1);
        }
        System.out.println("READY " + server.getLocalAddress().getPort());
        System.out.flush();
        stopped.await();
    }
}
