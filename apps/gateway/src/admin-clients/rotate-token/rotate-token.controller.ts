import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Access } from '../../admission/route-access';
import { ClientDirectory } from '../../clients/client-directory';
import { Fails, Returns } from '../../openapi/operation-contract';

export class RotatedTokenDto {
  @ApiProperty()
  client_id: string;
  @ApiProperty({ description: 'The new bearer token; every previous token of the client stops working at once.' })
  token: string;
}

@ApiTags('admin')
@ApiBearerAuth()
@Controller('v1/admin/clients')
export class RotateTokenController {
  constructor(private readonly clients: ClientDirectory) {}

  @Post(':client_id/rotate-token')
  @HttpCode(200)
  @Access('admin')
  @ApiOperation({ summary: "Replace a client's token; the old one is rejected from the next request on." })
  @Returns(200, RotatedTokenDto, { description: 'The new token.' })
  @Fails('gateway.unknown_client')
  async rotate(@Param('client_id') clientId: string): Promise<RotatedTokenDto> {
    return { client_id: clientId, token: await this.clients.rotateToken(clientId) };
  }
}
