import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * AWS's DynamoDB Local, bound to loopback and tied to the process that started it.
 *
 * DynamoDB Local has no option for the address it listens on: its Jetty server takes every
 * interface, and the table it serves holds names and dates of birth with no authentication. This
 * launcher builds the server from the same command-line arguments, points its one connector at
 * 127.0.0.1 before it starts, and exits when the parent process (the local runtime, or the test
 * run) is gone, so a killed `npm start` never leaves the store running and holding its files.
 *
 * Run from source by `java` (JEP 330), with DynamoDBLocal.jar and its libraries on the class path
 * (infra/local/dynamodb-local.ts).
 */
public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) ((ServerConnector) connector).setHost("127.0.0.1");
    String parent = System.getProperty("dynamodb.local.parent");
    if (parent != null)
      ProcessHandle.of(Long.parseLong(parent))
          .ifPresentOrElse(handle -> handle.onExit().thenRun(() -> Runtime.getRuntime().halt(0)), () -> Runtime.getRuntime().halt(0));
    proxy.start();
    System.out.println("DynamoDB Local listening on 127.0.0.1");
  }
}
